"""The io-descriptor core: ``*_tidl_io_1.bin`` (``sTIDL_IOBufDesc_t``) parsed and built from the
layouts in ``schemas/``, its tensors and their buffer geometry, validation, and its text,
JSON and SVG presentation.
"""
