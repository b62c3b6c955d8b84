"""Which layers lose precision and what to put in 16 bits (``tidl-io quant``, the doctor's
16-bit names check). Owns the readers of ``tempDir/*_tidl_net.bin_paramDebug.csv``
(:mod:`.paramdebug`) and of TIDL's quantization-parameters prototxt with its byte-exact writer
(:mod:`.qparams`), the per-layer join with the net or layer_info (:mod:`.report`) and the check
of ``output_feature_16bit_names_list`` / ``params_16bit_names_list`` (:mod:`.names`).
"""

from .paramdebug import ParamStats, parse_param_debug
from .qparams import LayerQuantParams, QuantParams, TensorQuantParams, load_quant_params, parse_quant_params
from .report import Activation, QuantLayer, QuantReport, load_quant

__all__ = ["Activation", "LayerQuantParams", "ParamStats", "QuantLayer", "QuantParams", "QuantReport",
           "TensorQuantParams", "load_quant", "load_quant_params", "parse_param_debug", "parse_quant_params"]
