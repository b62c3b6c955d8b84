"""Data movement: pack/unpack plans over the padded buffers, quantization, permute/reorg and the
blocked kernels' Python side, padding checks, TFLite-style details, TIDL's detection output.
"""
