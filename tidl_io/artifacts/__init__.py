"""A compiled model's folder: which io and net files it holds, in TIDL's subgraph order, and its
sidecar files (onnxrtMetaData.txt, allowedNode.txt, param.yaml); TIDL's subgraph numbers and the
one ``--subgraph`` resolver of every command (:mod:`.subgraphs`).
"""
