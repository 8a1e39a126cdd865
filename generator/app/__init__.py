"""The application layer: what both front ends (the command line and the web app) share, above the library."""
