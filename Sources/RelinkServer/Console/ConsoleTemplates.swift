/// The console's HTML, compiled into the binary. Every `{{value}}` is escaped by `HTMLEscaper` (the renderer
/// prefixes each template with its content-type pragma); the only raw insertions are the stylesheet, the script
/// and the charts' SVG, which `StatsChart` builds from escaped text.
enum ConsoleTemplates {
    /// Allowed by its hash in the Content-Security-Policy. Light and dark follow the system; narrow screens stack.
    static let style = """
        :root{color-scheme:light dark;--fg:#1d1d1f;--muted:#6e6e73;--bg:#f5f5f7;--card:#fff;--line:rgba(127,127,127,.28);--accent:#0a66d8;--bad:#b3261e;--warn:#8a5a00;\
        --ios:#0a66d8;--android:#2e7d32;--desktop:#8e44ad;--other:#9e9e9e;--c1:#0a66d8;--c2:#2e7d32;--c3:#e65100;--c4:#8e44ad;--c5:#00838f}\
        @media (prefers-color-scheme:dark){:root{--fg:#f5f5f7;--muted:#a1a1a6;--bg:#000;--card:#1c1c1e;--accent:#4c9bff;--bad:#ff8a80;--warn:#ffcc66;\
        --ios:#4c9bff;--android:#81c784;--desktop:#ce93d8;--other:#bdbdbd;--c1:#4c9bff;--c2:#81c784;--c3:#ffb74d;--c4:#ce93d8;--c5:#4dd0e1}}\
        *{box-sizing:border-box}body{margin:0;font:16px/1.5 -apple-system,system-ui,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}\
        header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.75rem 1rem;background:var(--card);border-bottom:1px solid var(--line)}\
        header.top nav{display:flex;gap:1rem;flex:1}.brand{font-weight:700;text-decoration:none;color:var(--fg)}\
        main{max-width:64rem;margin:0 auto;padding:1rem}.card{background:var(--card);border-radius:.75rem;padding:1rem 1.25rem;margin:0 0 1rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}\
        h1{font-size:1.4rem;margin:.25rem 0 .75rem}h2{font-size:1.1rem;margin:1rem 0 .5rem}a{color:var(--accent)}.muted{color:var(--muted);font-size:.9rem}\
        .bad{color:var(--bad)}.warn{color:var(--warn)}.ok{color:var(--android)}.notice{background:var(--card);border-left:4px solid var(--accent);padding:.5rem .75rem}\
        .scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid var(--line)}\
        td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.url{word-break:break-all}td,th,li,code,p{unicode-bidi:isolate}th,td.date{white-space:nowrap}caption{text-align:left;font-weight:600;padding:.25rem 0}\
        form.stack label{display:block;margin:.6rem 0 .2rem;font-weight:600;font-size:.9rem}input,select,button{font:inherit}\
        input[type=text],input[type=url],input[type=password],input[type=search],input[type=date],select{width:100%;padding:.5rem;border:1px solid var(--line);border-radius:.5rem;background:var(--bg);color:var(--fg)}\
        button,.button{display:inline-block;background:var(--accent);color:#fff;border:0;border-radius:.5rem;padding:.5rem 1rem;font-weight:600;text-decoration:none;cursor:pointer}\
        button.secondary{background:transparent;color:var(--accent);border:1px solid var(--accent)}form.inline{display:inline}\
        .row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}.row>*{flex:1 1 10rem}.row>button{flex:0 0 auto}\
        fieldset{border:1px solid var(--line);border-radius:.5rem;margin:1rem 0;padding:.25rem 1rem 1rem}legend{font-weight:600}\
        .help{color:var(--muted);font-size:.8rem;margin:.1rem 0 0}ul.checks{padding-left:1.2rem}.state-disabled,.state-expired{color:var(--bad)}\
        .chart{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1rem;align-items:start}@media (max-width:48rem){.chart{grid-template-columns:1fr}}.chart .scroll{max-height:22rem;overflow-y:auto}.chart td:first-child{white-space:nowrap}\
        @media (max-width:40rem){.wide-only{display:none}main{padding:.5rem}.card{padding:.75rem}}\
        svg.plot{width:100%;height:auto}svg.plot text{fill:var(--muted);font-size:11px}svg.plot .axis{stroke:var(--line)}\
        .s-ios{fill:var(--ios)}.s-android{fill:var(--android)}.s-desktop{fill:var(--desktop)}.s-other{fill:var(--other)}\
        .l1{stroke:var(--c1)}.l2{stroke:var(--c2)}.l3{stroke:var(--c3)}.l4{stroke:var(--c4)}.l5{stroke:var(--c5)}.f1{fill:var(--c1)}.f2{fill:var(--c2)}.f3{fill:var(--c3)}.f4{fill:var(--c4)}.f5{fill:var(--c5)}\
        .legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.85rem;list-style:none;padding:0}.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:.2rem;margin-right:.3rem;vertical-align:-.05rem}\
        .b-ios{background:var(--ios)}.b-android{background:var(--android)}.b-desktop{background:var(--desktop)}.b-other{background:var(--other)}\
        .b1{background:var(--c1)}.b2{background:var(--c2)}.b3{background:var(--c3)}.b4{background:var(--c4)}.b5{background:var(--c5)}\
        .qr{display:flex;flex-wrap:wrap;gap:1rem;align-items:start}.qr img{width:12rem;height:12rem;background:#fff;border-radius:.5rem}\
        details.group{border:1px solid var(--line);border-radius:.5rem;margin:1rem 0;padding:.5rem 1rem}details.group>summary{font-weight:600;cursor:pointer}\
        ul.field-checks{margin:.2rem 0 0}ul.field-checks:empty{display:none}.summary{border-left:4px solid var(--line);padding:.25rem .75rem;margin:1rem 0}.summary h2{margin:.25rem 0}\
        @media (min-width:48rem){.field{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);column-gap:1rem}.field>*{grid-column:1}.field>ul.field-checks{grid-column:2;grid-row:1/span 3;align-self:center}}
        """

    /// The console's only script, allowed by its hash: shows the app pickers and fills the fields from the chosen
    /// app (`data-ibi` and the like on its option), and checks the link form as it is typed (the same validator as the
    /// API): each warning beside the field it is about (unfolding its group), the codec's errors and the rest in the
    /// summary. Without JavaScript, the pickers stay hidden and the same checks appear after saving.
    static let script = """
        (function(){var f=document.getElementById('link-form');if(!f)return;\
        function each(q,g){Array.prototype.forEach.call(f.querySelectorAll(q),g)}\
        each('select[data-picker]',function(s){s.parentNode.hidden=false;s.addEventListener('change',function(){\
        Array.prototype.forEach.call(s.options[s.selectedIndex].attributes,function(a){\
        var i=a.name.indexOf('data-')===0&&document.getElementById('f-'+a.name.slice(5));if(i)i.value=a.value});\
        f.dispatchEvent(new Event('input'))})});\
        if(!window.fetch||!window.URLSearchParams)return;\
        var out=document.getElementById('checks'),url=f.getAttribute('data-validate'),t=null,n=0;\
        function add(u,c,s){var li=document.createElement('li');li.className=c;li.textContent=s;u.appendChild(li);}\
        function show(r){out.textContent='';each('ul.field-checks',function(u){u.textContent=''});var e=r.errors||[],w=r.warnings||[];\
        e.forEach(function(x){add(out,'bad',x)});w.forEach(function(x){\
        var u=x.parameter&&document.getElementById('checks-'+x.parameter),d=u&&u.closest('details');if(d)d.open=true;\
        add(u||out,'warn',x.code+': '+x.message)});\
        if(!e.length&&!w.length)add(out,'ok','No problems found.');}\
        function check(){var k=++n;fetch(url,{method:'POST',credentials:'same-origin',\
        headers:{'Content-Type':'application/x-www-form-urlencoded'},body:new URLSearchParams(new FormData(f)).toString()})\
        .then(function(r){return r.json()}).then(function(r){if(k===n)show(r)}).catch(function(){});}\
        f.addEventListener('input',function(){clearTimeout(t);t=setTimeout(check,250)});})();
        """

    static let header = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>{{title}} · Relink console</title>
        <link rel="icon" href="data:,">
        <style>{{{assets.style}}}</style>
        </head>
        <body>
        <header class="top"><a class="brand" href="/console/links">Relink console</a>
        {{#user}}<nav><a href="/console/links">Links</a><a href="/console/links/new">New link</a><a href="/console/stats">Stats</a></nav>
        <span class="muted">{{project}}</span>
        <form class="inline" method="post" action="/console/sign-out"><input type="hidden" name="csrf" value="{{csrf}}"><button class="secondary" type="submit" id="sign-out">Sign out</button></form>{{/user}}
        </header>
        <main>
        {{#notices}}<p class="notice" role="status">{{.}}</p>{{/notices}}

        """

    static let footer = """

        </main>
        <script>{{{assets.script}}}</script>
        </body>
        </html>
        """

    static let signIn = """
        {{>header}}<div class="card">
        <h1>Sign in</h1>
        <p class="muted">With an API key of your project, or a console token from <code>relink keys create --console</code>.</p>
        {{#error}}<p class="bad" role="alert">{{error}}</p>{{/error}}
        <form class="stack" method="post" action="/console/sign-in">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="key">Key</label><input type="password" id="key" name="key" autocomplete="current-password" required>
        <p><button type="submit" id="sign-in">Sign in</button></p>
        </form>
        {{#qrMissing}}<p class="muted">{{qrMissing}}</p>{{/qrMissing}}
        </div>{{>footer}}
        """

    static let links = """
        {{>header}}<div class="card">
        <h1>Links</h1>
        <form class="row" method="get" action="/console/links" role="search">
        <div><label class="muted" for="q">Search codes, destinations and names</label><input type="search" id="q" name="q" value="{{query}}"></div>
        <button type="submit">Search</button>
        </form>
        {{#empty}}<p>No links{{#query}} match “{{query}}”{{/query}}. <a href="/console/links/new">Create one</a>.</p>{{/empty}}
        {{^empty}}<div class="scroll"><table id="links">
        <caption class="muted">Newest first; clicks of the last 7 days, crawlers left out.</caption>
        <tr><th>Code</th><th>Name</th><th>Destination</th><th>State</th><th class="num">Clicks (7 days)</th><th class="wide-only">Created</th></tr>
        {{#links}}<tr><td><a href="{{href}}">{{code}}</a><br><span class="muted">{{domain}}</span></td><td class="name">{{#name}}{{name}}{{/name}}</td><td class="url">{{destination}}</td><td class="state-{{state}}">{{state}}</td><td class="num">{{clicks}}</td><td class="wide-only date">{{created}}</td></tr>
        {{/links}}</table></div>{{/empty}}
        <p>{{#firstHref}}<a href="{{firstHref}}">Newest</a> {{/firstHref}}{{#nextHref}}<a href="{{nextHref}}" rel="next">Older links</a>{{/nextHref}}</p>
        </div>{{>footer}}
        """

    static let linkForm = """
        {{>header}}<div class="card">
        <h1>{{heading}}</h1>
        {{#hasErrors}}<ul class="checks">{{#errors}}<li class="bad">{{.}}</li>{{/errors}}</ul>{{/hasErrors}}
        <form class="stack" id="link-form" method="post" action="{{action}}" data-validate="/console/links/validate">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#isNew}}<div class="row"><div><label for="domain">Domain</label><select id="domain" name="domain">{{#domains}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/domains}}</select></div>
        <div><label for="suffix">Short code</label><select id="suffix" name="suffix">{{#suffixes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/suffixes}}</select></div>
        <div><label for="customSuffix">Custom code</label><input type="text" id="customSuffix" name="customSuffix" value="{{customSuffix}}" pattern="[A-Za-z0-9_\\-]{1,64}"></div></div>
        <label for="name">Name <span class="muted">(optional)</span></label><input type="text" id="name" name="name" value="{{name}}" maxlength="200">
        <p class="help">How the console lists the link and search finds it.</p>{{/isNew}}
        {{^isNew}}<input type="hidden" name="domain" value="{{domain}}"><p class="muted">{{shortLink}}</p>{{/isNew}}
        <div class="summary"><h2>Checks</h2>
        <ul class="checks" id="checks" aria-live="polite">{{#warnings}}<li class="warn">{{code}}: {{message}}</li>{{/warnings}}</ul>
        <p class="muted">A check about one field is shown beside it.</p>
        <p><button type="submit" id="save">{{button}}</button></p></div>
        {{#groups}}{{#folded}}<details class="group" id="group-{{id}}"{{#open}} open{{/open}}><summary>{{legend}}</summary>{{/folded}}{{^folded}}<fieldset class="group" id="group-{{id}}"><legend>{{legend}}</legend>{{/folded}}
        {{#picker}}<div class="picker" hidden><label for="{{id}}">{{label}}</label><select id="{{id}}" data-picker><option value="">Choose one to fill the fields below</option>{{#apps}}<option{{#fills}} data-{{parameter}}="{{value}}"{{/fills}}>{{label}}</option>{{/apps}}</select></div>{{/picker}}
        {{#fields}}<div class="field" id="field-{{name}}"><label for="f-{{name}}">{{label}} <code class="muted">{{name}}</code></label><input type="text" id="f-{{name}}" name="{{name}}" value="{{value}}"{{#required}} required{{/required}} aria-describedby="help-{{name}} checks-{{name}}">
        <p class="help" id="help-{{name}}">{{help}}</p><ul class="checks field-checks" id="checks-{{name}}" aria-live="polite">{{#warnings}}<li class="warn">{{code}}: {{message}}</li>{{/warnings}}</ul></div>
        {{/fields}}{{#folded}}</details>{{/folded}}{{^folded}}</fieldset>{{/folded}}
        {{/groups}}
        <p><button type="submit" id="save-end">{{button}}</button></p>
        </form>
        </div>{{>footer}}
        """

    static let link = """
        {{>header}}<div class="card">
        <h1>{{code}}</h1>
        <p><a href="{{shortLink}}" id="short-link">{{shortLink}}</a></p>
        {{#hasWarnings}}<h2>Warnings</h2><ul class="checks">{{#warnings}}<li class="warn">{{code}}: {{message}}</li>{{/warnings}}</ul>{{/hasWarnings}}
        <div class="scroll"><table>
        {{#name}}<tr><th>Name</th><td id="name">{{name}}</td></tr>{{/name}}
        <tr><th>State</th><td class="state-{{state}}" id="state">{{state}}{{#stateNote}} <span class="muted">({{stateNote}})</span>{{/stateNote}}</td></tr>
        <tr><th>Destination</th><td class="url">{{destination}}</td></tr>
        <tr><th>Clicks (7 days)</th><td>{{clicks}}</td></tr>
        <tr><th>Created</th><td>{{created}}</td></tr><tr><th>Updated</th><td>{{updated}}</td></tr>
        {{#parameters}}<tr><th><code>{{name}}</code></th><td class="url">{{value}}</td></tr>{{/parameters}}
        </table></div>
        <p><a class="button" href="{{editHref}}" id="edit">Edit</a> <a class="button" href="{{statsHref}}" id="stats-link">Stats</a> <a class="button" href="{{debugHref}}" id="debug-link">Debug view</a>
        <form class="inline" method="post" action="{{toggleHref}}"><input type="hidden" name="csrf" value="{{csrf}}"><button class="secondary" type="submit" id="toggle">{{toggleLabel}}</button></form></p>
        </div>
        <div class="card"><h2>QR code</h2>
        {{#qrMissing}}<p class="bad" role="alert" id="qr-missing">{{qrMissing}}</p>{{/qrMissing}}
        {{^qrMissing}}<div class="qr"><img src="{{qrPreviewHref}}" alt="QR code for {{shortLink}}" id="qr-preview">
        <form method="get" action="{{qrSVGAction}}" class="stack" id="qr-form">
        {{#domainField}}<input type="hidden" name="domain" value="{{domainField}}">{{/domainField}}
        <div class="row"><div><label for="qr-size">Size (pixels)</label><input type="text" id="qr-size" name="size" value="512" inputmode="numeric"></div>
        <div><label for="qr-ecc">Error correction</label><select id="qr-ecc" name="ecc"><option value="L">L (7%)</option><option value="M" selected>M (15%)</option><option value="Q">Q (25%)</option><option value="H">H (30%)</option></select></div></div>
        <input type="hidden" name="download" value="1">
        <p><button type="submit" id="qr-svg">Download SVG</button> <button type="submit" formaction="{{qrPNGAction}}" id="qr-png">Download PNG</button></p>
        </form></div>{{/qrMissing}}
        </div>{{>footer}}
        """

    static let stats = """
        {{>header}}<div class="card">
        <h1>{{heading}}</h1>
        <form class="row" method="get" action="{{action}}" id="range">
        <div><label for="from">From</label><input type="date" id="from" name="from" value="{{from}}"></div>
        <div><label for="to">To</label><input type="date" id="to" name="to" value="{{to}}"></div>
        <button type="submit">Show</button>
        </form>
        <p class="muted">Days in UTC. <a href="{{csvHref}}" id="csv" download>Events as CSV</a> · <a href="{{confidenceCSVHref}}" download>Confidence as CSV</a></p>
        <div class="scroll"><table id="totals"><caption>Totals, {{from}} to {{to}}</caption>
        <tr>{{#totals}}<th class="num">{{label}}</th>{{/totals}}</tr><tr>{{#totals}}<td class="num">{{value}}</td>{{/totals}}</tr></table></div>
        </div>
        {{#charts}}<div class="card"><h2 id="{{id}}-heading">{{title}}</h2>
        <div class="chart"><div>{{{svg}}}<ul class="legend">{{#legend}}<li><span class="swatch {{swatch}}"></span>{{label}}</li>{{/legend}}</ul></div>
        <div class="scroll"><table id="{{id}}-table"><caption>{{title}} (table)</caption>
        <tr>{{#headers}}<th{{#numeric}} class="num"{{/numeric}}>{{label}}</th>{{/headers}}</tr>
        {{#rows}}<tr>{{#cells}}<td{{#numeric}} class="num"{{/numeric}}>{{text}}</td>{{/cells}}</tr>
        {{/rows}}</table></div></div></div>
        {{/charts}}{{>footer}}
        """

    static let debug = """
        {{>header}}<div class="card">
        <p class="muted">Debug view · {{report.kind}}</p>
        <h1>Where this link goes</h1>
        <p class="muted"><code>{{report.linkURL}}</code></p>
        {{#report.stateNotes}}<p class="bad"><strong>{{.}}</strong></p>{{/report.stateNotes}}
        {{#report.hasRules}}<p class="muted">Rules decide per click; this view shows the link's own destinations. Open the link with <code>?d=1</code> from a device to see how its rules decide for it.</p>{{/report.hasRules}}
        <div class="scroll">{{{report.flowchart}}}</div>
        <div class="scroll"><table>
        <tr><th>Who clicks</th><th>What happens</th><th>Destination</th><th>Why</th></tr>
        {{#report.outcomes}}<tr><td>{{scenario}}</td><td>{{action}}</td><td class="url">{{destination}}</td><td>{{reason}}</td></tr>
        {{/report.outcomes}}
        </table></div>
        {{#report.hasProblems}}<h2>Problems</h2><ul>
        {{#report.errors}}<li class="bad"><strong>{{code}}</strong> {{message}}</li>{{/report.errors}}
        {{#report.violations}}<li class="bad"><strong>NOT_ALLOWLISTED</strong> {{message}}</li>{{/report.violations}}
        {{#report.warnings}}<li class="warn"><strong>{{code}}</strong> {{message}}</li>{{/report.warnings}}
        </ul>{{/report.hasProblems}}
        <h2>Parameters</h2><div class="scroll"><table>
        {{#report.parameters}}<tr><th>{{name}}</th><td class="url">{{value}}</td><td class="muted">{{summary}}</td></tr>
        {{/report.parameters}}</table></div>
        <p><a href="{{back}}">Back to the link</a></p>
        </div>{{>footer}}
        """

    static let message = """
        {{>header}}<div class="card">
        <h1>{{heading}}</h1>
        {{#paragraphs}}<p>{{.}}</p>{{/paragraphs}}
        <p><a href="{{back}}">{{backLabel}}</a></p>
        </div>{{>footer}}
        """
}
