/* global SwaggerUIBundle, SwaggerUIStandalonePreset */
// Runs in the browser on /api/docs/: shows this service's OpenAPI document with Swagger UI, offline.
window.addEventListener('load', function () {
  // A key the page was opened with (?AppAuthorization=) fetches the document and goes with every request tried.
  var key = new URLSearchParams(window.location.search).get('AppAuthorization')
  var schemaUrl = '/api/schema/?format=json' + (key ? '&AppAuthorization=' + encodeURIComponent(key) : '')
  window.ui = SwaggerUIBundle({
    url: schemaUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    // No online validator badge: the page must not reach beyond this service.
    validatorUrl: null,
    onComplete: function () {
      if (key) window.ui.preauthorizeApiKey('AppKeyQuery', key)
    },
  })
})
