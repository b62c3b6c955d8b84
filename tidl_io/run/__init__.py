"""Running a model: Session (artifacts + runtime + pack/unpack), ``tidl-io run`` and the demo.
"""
