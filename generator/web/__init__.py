"""The local web app: routes that parse a request, call the library and render a template."""
