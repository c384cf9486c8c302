// libxml2 through pkg-config (libxml-2.0): Debian's libxml2-dev. Relink parses HTML with it and never loads
// external entities, DTDs or anything from the network (HTML_PARSE_NONET, no XML_PARSE_DTDLOAD/NOENT).
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, whose headers clash with the copy of ICU inside Foundation. Relink never
// touches the encoding handler's ICU converters (the only thing the macro adds), so they stay out.
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
