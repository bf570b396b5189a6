import { staticAsset } from './static-asset.ts'

// Small, dependency-free CSS: readable on a phone and a desktop, light and dark.
export const STYLES = `
:root{color-scheme:light dark;--fg:#1d1d1f;--muted:#6b6b70;--bg:#fbfbfd;--card:#fff;--line:#e2e2e7;--accent:#c2410c;--on-accent:#fff;--danger:#b91c1c}
@media (prefers-color-scheme:dark){:root{--fg:#ececf1;--muted:#a0a0a8;--bg:#151518;--card:#1e1e22;--line:#33333a;--accent:#fb923c;--on-accent:#151518;--danger:#f87171}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header.top{display:flex;align-items:center;justify-content:space-between;gap:1rem;padding:.75rem 1rem;border-bottom:1px solid var(--line);flex-wrap:wrap}
.brand{font-weight:700;color:var(--accent);text-decoration:none;font-size:1.1rem}
nav{display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
nav a{color:var(--fg)}
main{max-width:46rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.6rem;padding:1rem;margin:.75rem 0}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email],input[type=password],input[type=search],input[type=text],input[type=url],select{width:100%;padding:.55rem .65rem;border:1px solid var(--line);border-radius:.4rem;font:inherit;background:var(--bg);color:var(--fg)}
fieldset{border:1px solid var(--line);border-radius:.4rem;margin:.75rem 0;padding:.5rem .75rem}
fieldset label{font-weight:400;display:flex;gap:.5rem;align-items:center;margin:.2rem 0}
button{font:inherit;padding:.5rem 1rem;border-radius:.4rem;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);cursor:pointer}
button.secondary{background:transparent;color:var(--fg);border-color:var(--line)}
button.danger{background:transparent;color:var(--danger);border-color:var(--danger)}
button.link{background:none;border:none;color:var(--fg);text-decoration:underline;padding:0}
form.inline{display:inline}
.actions{display:flex;gap:.75rem;margin-top:1rem;flex-wrap:wrap}
.error{color:var(--danger);font-weight:600}
.notice{border-left:4px solid var(--accent);padding:.5rem .75rem;background:var(--card)}
progress{display:block;width:100%;height:.75rem;accent-color:var(--accent)}
.secret{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all;padding:.5rem;border:1px dashed var(--accent);border-radius:.4rem;display:block}
.muted{color:var(--muted);font-size:.9rem}
table{width:100%;border-collapse:collapse}
td,th{text-align:left;padding:.4rem .3rem;border-bottom:1px solid var(--line);vertical-align:top}
ul.items{list-style:none;padding:0}
ul.items li{padding:.6rem 0;border-bottom:1px solid var(--line)}
ul.items li.read a.title{color:var(--muted)}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
@media (max-width:600px){table,thead,tbody,tr,td,th{display:block}thead{display:none}td{border:none;padding:.15rem 0}tr{border-bottom:1px solid var(--line);padding:.5rem 0}}
.narrow{max-width:28rem}
.card>:first-child,form.card>label:first-of-type{margin-top:0}
.card>:last-child{margin-bottom:0}
.table-wrap{overflow-x:auto}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
a.button{display:inline-block;padding:.5rem 1rem;border-radius:.4rem;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);text-decoration:none}
a.button.secondary{background:transparent;color:var(--fg);border-color:var(--line)}
.row{display:flex;gap:.5rem;align-items:stretch}
.row input,.row select{flex:1;min-width:0}
.scope-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.35rem 1rem}
.check{display:grid;grid-template-columns:auto 1fr;column-gap:.5rem;align-items:baseline;align-content:start}
fieldset .check label{display:inline;margin:0;font-weight:600;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem}
.check .muted{grid-column:2;font-size:.8rem}
ul.scopes{list-style:none;margin:0;padding:0}
ul.scopes code{font-size:.8rem;white-space:nowrap}
.webhook h3{font-size:1rem;margin:0 0 .5rem;overflow-wrap:anywhere}
.webhook h4{font-size:.95rem;margin:1rem 0 .25rem}
table.rows{font-size:.9rem}
table.rows th{font-size:.8rem;color:var(--muted);font-weight:600}
ul.items li{display:flex;gap:.75rem;align-items:center;justify-content:space-between}
.item-main{min-width:0;flex:1}
a.title{font-weight:600;overflow-wrap:anywhere;color:var(--fg);text-decoration:none}
a.title:hover,a.title:focus{text-decoration:underline}
a.original{color:inherit}
ul.items li .item-main{position:relative;padding-left:1rem}
ul.items li.unread .item-main::before{content:"";position:absolute;left:0;top:.5rem;width:.5rem;height:.5rem;border-radius:50%;background:var(--accent)}
.search{margin:1rem 0}
.results-head{display:flex;gap:1rem;align-items:baseline;justify-content:space-between;flex-wrap:wrap}
.results-head h2{margin:.5rem 0;overflow-wrap:anywhere;min-width:0}
.snippet{margin:.25rem 0 0;font-size:.9rem;overflow-wrap:anywhere}
mark{background:#fde68a;color:#1d1d1f;border-radius:.15rem;padding:0 .1rem}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.queue-layout{display:grid;grid-template-columns:13rem 1fr;gap:1.25rem;align-items:start}
.folders h2{font-size:1rem;margin:.25rem 0 .5rem}
.folders ul{list-style:none;margin:0;padding:0}
.folders li a{display:flex;justify-content:space-between;gap:.5rem;padding:.3rem .5rem;border-radius:.4rem;color:var(--fg);text-decoration:none;overflow-wrap:anywhere}
.folders li a[aria-current]{background:var(--card);border:1px solid var(--line);font-weight:600}
.count{color:var(--muted);font-variant-numeric:tabular-nums}
.manage{margin-top:1rem;font-size:.9rem}
ul.folder-list{list-style:none;margin:0;padding:0}
.filter-bar{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;justify-content:space-between;margin:0 0 .5rem}
ul.tabs{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0;padding:0}
ul.tabs a{display:inline-block;padding:.3rem .7rem;border-radius:1rem;border:1px solid var(--line);color:var(--fg);text-decoration:none;font-size:.9rem}
ul.tabs a[aria-current]{background:var(--accent);border-color:var(--accent);color:var(--on-accent)}
ul.cards{list-style:none;margin:0;padding:0}
ul.cards li.item-card{display:block;margin:.6rem 0;padding:.85rem 1rem;border:1px solid var(--line);border-radius:.6rem;background:var(--card)}
ul.cards li.item-card.current{border-color:var(--accent);box-shadow:0 0 0 1px var(--accent)}
ul.cards li.read{opacity:.8}
.card-head{display:flex;gap:.65rem;align-items:flex-start}
.favicon{flex:none;display:block;width:20px;height:20px;margin-top:.15rem;border-radius:.2rem}
.favicon.placeholder{background:var(--line)}
.card-text{min-width:0;flex:1}
.card-text .meta{margin:.1rem 0 0;color:var(--muted);font-size:.85rem;overflow-wrap:anywhere}
.summary{margin:.45rem 0 0;font-size:.92rem;display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden;overflow-wrap:anywhere}
ul.tags{display:flex;flex-wrap:wrap;gap:.3rem;list-style:none;margin:.5rem 0 0;padding:0}
ul.tags li{font-size:.75rem;padding:.05rem .5rem;border-radius:1rem;border:1px solid var(--line);color:var(--muted)}
.card-actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.65rem;align-items:center}
.card-actions button,.card-actions a{padding:.3rem .7rem;font-size:.85rem;border-radius:.4rem;border:1px solid var(--line);background:transparent;color:var(--fg);text-decoration:none;line-height:1.5}
.card-actions button.danger{color:var(--danger);border-color:var(--danger)}
.undo{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap}
.shortcuts{margin:1.5rem 0;font-size:.9rem;color:var(--muted)}
.shortcuts dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem .75rem;margin:.5rem 0}
.shortcuts dd{margin:0}
kbd{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;border:1px solid var(--line);border-bottom-width:2px;border-radius:.25rem;padding:0 .3rem;background:var(--card);color:var(--fg)}
main:has(.queue-layout){max-width:64rem}
@media (max-width:760px){.queue-layout{grid-template-columns:1fr}.folders ul{display:flex;flex-wrap:wrap;gap:.25rem}.folders li a{border:1px solid var(--line)}}
@media (max-width:600px){td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted);font-size:.8rem}ul.scopes,ul.scopes li{display:inline}ul.scopes li+li::before{content:", "}ul.items li{flex-wrap:wrap}}
`

// The reader view: a measure of about 70 characters, a larger serif, room between lines. Article tables
// stay tables on a phone (the app's own tables stack) and scroll sideways like code.
export const READER_STYLES = `
main.reader-main{max-width:none;padding:1rem 1rem 4rem}
.reader{max-width:70ch;margin:0 auto;font:1.15rem/1.6 Charter,"Bitstream Charter","Sitka Text",Cambria,Georgia,serif}
.reader-head{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:1rem;line-height:1.5;border-bottom:1px solid var(--line);padding-bottom:1rem;margin-bottom:1.5rem}
.reader-head h1{font:700 2rem/1.2 Charter,"Bitstream Charter","Sitka Text",Cambria,Georgia,serif;margin:.25rem 0 .5rem;overflow-wrap:break-word}
.reader-site,.reader-byline{margin:0}
.reader-actions{display:flex;gap:.75rem;flex-wrap:wrap;align-items:center;margin-top:1rem}
.reader-actions form{margin:0}
.article{overflow-wrap:break-word;hyphens:auto}
.article h1,.article h2,.article h3,.article h4,.article h5,.article h6{line-height:1.25;margin:2rem 0 .75rem}
.article h1{font-size:1.6rem}.article h2{font-size:1.4rem}.article h3{font-size:1.2rem}.article h4,.article h5,.article h6{font-size:1.05rem}
.article p,.article ul,.article ol,.article blockquote,.article figure,.article pre,.article table{margin:0 0 1.2rem}
.article li{margin:.25rem 0}
.article a{color:var(--accent)}
.article img{max-width:100%;height:auto}
.article figure{margin-left:0;margin-right:0}
.article figcaption{color:var(--muted);font-size:.9rem;line-height:1.4;margin-top:.4rem}
.article blockquote{margin-left:0;padding-left:1rem;border-left:3px solid var(--line);color:var(--muted)}
.article pre{overflow-x:auto;padding:.75rem 1rem;background:var(--card);border:1px solid var(--line);border-radius:.4rem;font-size:.85rem;line-height:1.45;hyphens:none}
.article pre code{font-size:inherit}
.article :not(pre)>code{background:var(--card);border:1px solid var(--line);border-radius:.25rem;padding:0 .2rem;overflow-wrap:anywhere}
.article hr{border:none;border-top:1px solid var(--line);margin:2rem 0}
.article table{display:block;overflow-x:auto;width:auto;max-width:100%;font-size:.95rem;line-height:1.4}
.article thead{display:table-header-group}.article tbody{display:table-row-group}.article tfoot{display:table-footer-group}
.article tr{display:table-row;border:none;padding:0}.article td,.article th{display:table-cell;padding:.4rem .5rem;border-bottom:1px solid var(--line)}
@media (max-width:600px){.reader{font-size:1.05rem}.reader-head h1{font-size:1.6rem}}
`

/** Where the app's stylesheet is served (every page links it; docs/web.md#pages). */
export const APP_STYLESHEET_PATH = '/assets/app.css'
export const APP_STYLESHEET = staticAsset(APP_STYLESHEET_PATH, STYLES, 'text/css; charset=utf-8')
