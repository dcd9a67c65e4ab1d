"""The version of harness-conformance, readable without importing the package's parts."""

__version__ = "0.1.0.dev0"
