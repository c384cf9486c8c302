// The API's messages and the values they carry live in RelinkAPI, which apps embed through RelinkClient without the
// rest of Core; everything that imports Core sees them as before.
@_exported import RelinkAPI
