"""Plan -> files: dist/ written atomically (and render --check), MANIFEST read back, the release
package."""
