"""Plan -> what a harness is shipped as: the release tarball for hookshape's own installer
(tarball.py), or a vendor plugin or extension directory built from the vendor's profile
(plugin.py, with its README and LICENSE from docs.py), written whole or not at all (outdir.py)."""
