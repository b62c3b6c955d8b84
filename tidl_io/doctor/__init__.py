"""``tidl-io doctor``: do the files of a compiled model agree (releases, io <-> net, sidecars)?
Its checks, its findings and their text/JSON/HTML.
"""
