"""Live test tier: the real agent CLIs against a scripted local model server."""
