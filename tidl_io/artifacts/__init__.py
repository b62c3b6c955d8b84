"""A compiled model's folder: which io and net files it holds, in TIDL's subgraph order, and its
sidecar files (onnxrtMetaData.txt, allowedNode.txt, param.yaml).
"""
