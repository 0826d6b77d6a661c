import { createHash } from 'node:crypto'

/** The pages' only styling; the Content-Security-Policy admits this exact text by its hash and no script at all. */
export const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;--link:#0b5cad;--head:#1d3b5c;--err:#b42318}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;--link:#58a6ff;--head:#102a43;--err:#ff7b72}}
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:0;background:var(--bg);color:var(--fg);line-height:1.45}
header{background:var(--head);color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between}
header a{color:#fff;font-weight:600;text-decoration:none}
header form{display:inline}
header details{position:relative}
header details form{display:grid;gap:.4rem;margin-top:.4rem}
main{padding:1rem;max-width:72rem;margin:0 auto}
a{color:var(--link)}
nav.crumbs{font-size:.95rem;margin-bottom:.5rem;overflow-wrap:anywhere}
h1{font-size:1.5rem;margin:.3rem 0}
pre{background:var(--panel);border:1px solid var(--line);padding:1rem;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.9rem}
.request{font-family:ui-monospace,monospace;margin:.5rem 0;overflow-wrap:anywhere}
.buttons{display:flex;flex-wrap:wrap;gap:.5rem;justify-content:flex-end}
.buttons form{margin:0}
section.form{border:1px solid var(--line);border-radius:6px;padding:.8rem;margin:1rem 0;background:var(--panel)}
section.form h2{font-size:1.1rem;margin:0 0 .5rem}
details>summary{cursor:pointer;font-weight:600}
.fields{display:grid;grid-template-columns:minmax(8rem,14rem) 1fr;gap:.5rem .8rem;align-items:center;margin:.6rem 0}
.fields label{font-weight:600;overflow-wrap:anywhere}
.fields small{grid-column:2;color:var(--muted);margin-top:-.4rem}
input,select,textarea,button{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:.35rem .5rem;max-width:100%}
textarea{width:100%;min-height:8rem;font-family:ui-monospace,monospace}
button{background:var(--link);color:#fff;border-color:var(--link);cursor:pointer}
button.danger{background:var(--err);border-color:var(--err)}
header button{background:transparent;border-color:#fff}
.user{font-size:.95rem}
figure.picture{margin:1rem 0;background:#fff;border:1px solid var(--line);border-radius:6px;padding:.5rem}
figure.picture img{display:block;max-width:100%;height:auto}
@media (max-width:40rem){.fields{grid-template-columns:1fr}.fields small{grid-column:1;margin-top:0}main{padding:.6rem}pre{padding:.6rem;font-size:.8rem}}
`

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64')

/** No script may run, no other origin is loaded, forms only post here, and no other site may frame the page. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "img-src 'self' data: https:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')
