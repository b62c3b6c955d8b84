"""The low floor every part stands on: errors, argument checks, environment variables, atomic
writes, the allocation cap, user-array layouts, TIDL releases and the struct-layout engine.
Nothing here imports another part of tidl_io.
"""
