/// The HTML of Relink's pages, compiled into the binary so that one file is the whole service.
/// Every `{{value}}` is escaped by `HTMLEscaper` (the renderer prefixes each template with its content-type
/// pragma); the only raw insertions are the style, the script and the debug page's SVG, which `DebugFlowchart`
/// builds from escaped text.
enum PageTemplates {
    /// Shared by every page; allowed by its hash in the Content-Security-Policy.
    static let style = """
        :root{color-scheme:light dark;--fg:#1d1d1f;--muted:#6e6e73;--bg:#f5f5f7;--card:#fff;--accent:#0a66d8;--bad:#b3261e}\
        @media (prefers-color-scheme:dark){:root{--fg:#f5f5f7;--muted:#a1a1a6;--bg:#000;--card:#1c1c1e;--accent:#4c9bff;--bad:#ff8a80}}\
        *{box-sizing:border-box}body{margin:0;font:16px/1.5 -apple-system,system-ui,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}\
        main{max-width:30rem;margin:0 auto;padding:1.5rem 1rem}.card{background:var(--card);border-radius:1rem;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}\
        .hero{display:block;width:100%;max-height:16rem;object-fit:cover;border-radius:.75rem;margin-bottom:1rem}\
        .app{margin:0;color:var(--muted);font-size:.9rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em}\
        h1{font-size:1.5rem;line-height:1.25;margin:.25rem 0 .5rem}p{margin:.5rem 0}\
        .button{display:block;text-align:center;background:var(--accent);color:#fff;text-decoration:none;font-weight:600;padding:.85rem;border-radius:.75rem;margin-top:1.25rem}\
        .web{text-align:center;font-size:.95rem}a{color:var(--accent)}.muted{color:var(--muted);font-size:.9rem}.bad{color:var(--bad)}\
        .wide{max-width:60rem}table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid rgba(127,127,127,.25);word-break:break-all}\
        th{white-space:nowrap;word-break:normal}code{font-size:.85rem}svg{width:100%;height:auto;margin:1rem 0}\
        .save{display:flex;gap:.5rem;align-items:center;margin-top:1rem;font-size:.95rem}
        """

    static let appPreview = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>{{title}}</title>
        {{#description}}<meta name="description" content="{{description}}">{{/description}}
        <style>{{{assets.style}}}</style>
        </head>
        <body>
        <main>
        <div class="card">
        {{#imageURL}}<img class="hero" src="{{imageURL}}" alt="">{{/imageURL}}
        <p class="app">{{appName}}</p>
        <h1>{{title}}</h1>
        {{#description}}<p>{{description}}</p>{{/description}}
        {{#claimURL}}<label class="save"><input type="checkbox" id="save" checked> Save my place in the app</label>{{/claimURL}}
        <a class="button" id="open" href="{{openURL}}"{{#claimURL}} data-clipboard="{{claimURL}}"{{/claimURL}}{{#clickID}} data-click="{{clickID}}" data-beacon="{{beaconPath}}"{{/clickID}}>Open</a>
        <p class="web"><a href="{{webURL}}">Continue on the web</a></p>
        </div>
        </main>
        <script>{{{assets.script}}}</script>
        </body>
        </html>
        """

    /// The preview page's only script, allowed by its hash. It tells the server the screen, time zone and
    /// languages (for matching the install later), and copies the claim link when the box is ticked. Without
    /// JavaScript the page still works; only the copy is lost.
    static let previewScript = """
        (function(){var b=document.getElementById('open');if(!b)return;\
        var c=b.getAttribute('data-click'),u=b.getAttribute('data-beacon');\
        if(c&&u&&navigator.sendBeacon){try{var z='';try{z=Intl.DateTimeFormat().resolvedOptions().timeZone||''}catch(e){}\
        navigator.sendBeacon(u,JSON.stringify({c:c,w:screen.width,h:screen.height,tz:z,l:navigator.languages||[navigator.language]}))}catch(e){}}\
        b.addEventListener('click',function(e){var s=document.getElementById('save'),t=b.getAttribute('data-clipboard');\
        if(!t||!s||!s.checked||!navigator.clipboard||!navigator.clipboard.writeText)return;e.preventDefault();var h=b.href;\
        navigator.clipboard.writeText(t).then(function(){location.href=h},function(){location.href=h})})})();
        """

    static let socialPreview = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}}</title>
        {{#title}}<meta property="og:title" content="{{title}}">
        <meta name="twitter:title" content="{{title}}">{{/title}}
        {{#description}}<meta name="description" content="{{description}}">
        <meta property="og:description" content="{{description}}">
        <meta name="twitter:description" content="{{description}}">{{/description}}
        {{#imageURL}}<meta property="og:image" content="{{imageURL}}">
        <meta name="twitter:image" content="{{imageURL}}">{{/imageURL}}
        <meta property="og:url" content="{{canonicalURL}}">
        <meta property="og:type" content="website">
        <meta name="twitter:card" content="summary_large_image">
        <link rel="canonical" href="{{canonicalURL}}">
        <style>{{{assets.style}}}</style>
        </head>
        <body>
        <main><div class="card"><h1>{{title}}</h1>{{#description}}<p>{{description}}</p>{{/description}}
        <p><a href="{{canonicalURL}}">{{canonicalURL}}</a></p></div></main>
        </body>
        </html>
        """

    static let message = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>{{title}}</title>
        <style>{{{assets.style}}}</style>
        </head>
        <body>
        <main><div class="card">
        <h1>{{title}}</h1>
        {{#paragraphs}}<p>{{.}}</p>{{/paragraphs}}
        </div></main>
        </body>
        </html>
        """

    static let debug = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>Debug: {{linkURL}}</title>
        <style>{{{assets.style}}}</style>
        </head>
        <body>
        <main class="wide">
        <div class="card">
        <p class="app">Relink debug · {{kind}}</p>
        <h1>Where this link goes</h1>
        <p class="muted"><code>{{linkURL}}</code></p>
        {{#stateNotes}}<p class="bad"><strong>{{.}}</strong></p>{{/stateNotes}}
        {{{flowchart}}}
        <table>
        <tr><th>Who clicks</th><th>What happens</th><th>Destination</th><th>Why</th></tr>
        {{#outcomes}}<tr><td>{{scenario}}</td><td>{{action}}</td><td>{{#destination}}<a href="{{destination}}">{{destination}}</a>{{/destination}}</td><td>{{reason}}</td></tr>
        {{/outcomes}}
        </table>
        {{#hasRules}}<h2>Rules for this request</h2>
        <ul>
        {{#ruleNotes}}<li>{{.}}</li>{{/ruleNotes}}
        </ul>{{/hasRules}}
        {{#hasProblems}}<h2>Problems</h2>
        <ul>
        {{#errors}}<li class="bad"><strong>{{code}}</strong> {{message}}</li>{{/errors}}
        {{#violations}}<li class="bad"><strong>NOT_ALLOWLISTED</strong> {{message}}</li>{{/violations}}
        {{#warnings}}<li><strong>{{code}}</strong> {{message}}</li>{{/warnings}}
        </ul>{{/hasProblems}}
        <h2>Parameters</h2>
        <table>
        {{#parameters}}<tr><th>{{name}}</th><td>{{value}}</td><td class="muted">{{summary}}</td></tr>
        {{/parameters}}
        </table>
        </div>
        </main>
        </body>
        </html>
        """
}
