"""The float model back from an int8 ONNX scorer: the starting point for retraining a model already shipped.

The exported file keeps the names of the biases, the LayerNorms and the (quantised) embeddings, but each
linear layer's weight is an anonymous `onnx::MatMul_N_quantized` (or `X.weight_Transposed_quantized` for a
Gemm) read by a MatMulInteger node, with per-output-channel `_scale` and `_zero_point`. Such a weight is
named by where its product goes: through the Cast and the scale multiplications to the Add of a named bias
`X.bias`; it is then `X.weight`, transposed (ONNX multiplies by (in, out), torch stores (out, in)). Zero
points are uint8 128 in a file that went through `training.unsigned_weights`, int8 0 in one that did not;
both read the same. Needs the training extra (torch, transformers, onnx).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from verification.errors import PermanentError
from verification.scorers import cross_encoder
from verification.training import fine_tune as training
from verification.training.pairs import Pair

_QUANTIZED = "_quantized"
_PASSING = frozenset({"Cast", "Mul"})
"""The nodes between a MatMulInteger and its bias's Add: the cast to float and the scale multiplications."""


class UnmappedWeight(PermanentError):
    """A weight of the int8 file that cannot be placed in the float model, or a float parameter with no weight
    in the file; the message names it and the file."""


def float_model(path: Path) -> Any:
    """A float `BertForSequenceClassification` (one logit, the base model's configuration) holding the weights
    of the int8 ONNX file at `path`, dequantised; in eval mode. UnmappedWeight when a weight cannot be placed,
    ModelUnavailable when the file is missing or unreadable."""
    import torch
    from transformers import AutoConfig, BertForSequenceClassification

    arrays, graph = _read(path)
    config = AutoConfig.from_pretrained(str(training._base_model_dir()), num_labels=1)
    model = BertForSequenceClassification(config)
    parameters = dict(model.named_parameters())
    weights = _weights(arrays, graph, path, set(parameters))
    missing = sorted(set(parameters) - set(weights))
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise UnmappedWeight(f"{path}: no weight for {', '.join(missing[:3])}{more}")
    for name, array in weights.items():
        parameter = parameters[name]
        if tuple(parameter.shape) != array.shape:
            raise UnmappedWeight(f"{path}: {name} is {array.shape} in the file, {tuple(parameter.shape)} in the model")
        with torch.no_grad():
            parameter.copy_(torch.from_numpy(np.array(array, dtype=np.float32)))
    model.eval()
    return model


def agreement(model: Any, folder: Path, pairs: Sequence[Pair]) -> dict[str, float | None]:
    """How closely the float `model` reads `pairs` as the int8 model in `folder` does (`training.differences`):
    the check that dequantisation put every weight where it belongs."""
    float_logits, int8_logits = training.compared(model, cross_encoder.CrossEncoder(folder), pairs)
    return {"pairs": len(pairs), **training.differences(int8_logits, float_logits)}


def _read(path: Path) -> tuple[dict[str, np.ndarray], Any]:
    import onnx
    from onnx import numpy_helper

    if not path.is_file():
        raise cross_encoder.ModelUnavailable(f"scorer model file missing: {path}")
    try:
        graph = onnx.load(str(path)).graph
    except Exception as error:  # onnx raises its own classes (and protobuf's) for every kind of bad file
        reason = type(error).__name__
        raise cross_encoder.ModelUnavailable(f"scorer model file unreadable: {path} ({reason})") from error
    return {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}, graph


def _weights(arrays: dict[str, np.ndarray], graph: Any, path: Path, parameters: set[str]) -> dict[str, np.ndarray]:
    """Every weight the file holds, in float, by its torch parameter name."""
    consumers: dict[str, list[Any]] = {}
    producers: dict[str, Any] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
        for name in node.output:
            producers[name] = node
    weights: dict[str, np.ndarray] = {}
    placed: set[str] = set()
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        quantized = node.input[1]
        if quantized not in arrays:
            continue  # a product of two activations (none in BERT), not a weight
        bias = _bias_after(node, consumers, arrays)
        if bias is None:
            raise UnmappedWeight(f"{path}: {quantized} (read by {node.name or 'a MatMulInteger'}) reaches no Add "
                                 "of a named bias, so its layer is unknown")
        scale = _weight_scale(node, consumers, producers, arrays)
        if scale is None or len(node.input) < 4 or node.input[3] not in arrays:
            raise UnmappedWeight(f"{path}: {quantized} has no scale or zero point to dequantise it by")
        matrix = _dequantized(arrays[quantized], arrays[scale], arrays[node.input[3]])
        name = bias.removesuffix("bias") + "weight"
        if name not in parameters:
            raise UnmappedWeight(f"{path}: {quantized} is added to {bias}, but the model has no {name}")
        weights[name] = matrix.T
        placed.add(quantized)
    for name, array in arrays.items():
        if name.endswith(_QUANTIZED) and name not in placed:
            # A named quantised weight: the embedding tables, read by Gather and DequantizeLinear.
            base = name.removesuffix(_QUANTIZED)
            step, zero = arrays.get(base + "_scale"), arrays.get(base + "_zero_point")
            if base not in parameters or step is None or zero is None:
                raise UnmappedWeight(f"{path}: {name} names no parameter of the model, or has no scale and zero "
                                     "point to dequantise it by")
            weights[base] = _dequantized(array, step, zero)
        elif name in parameters:
            weights[name] = array
    return weights


def _bias_after(node: Any, consumers: dict[str, list[Any]], arrays: dict[str, np.ndarray]) -> str | None:
    """The named bias added to the product `node` makes, following the cast and scale multiplications."""
    output = node.output[0]
    for _ in range(8):
        following = consumers.get(output, [])
        if len(following) != 1:
            return None
        nxt = following[0]
        if nxt.op_type == "Add":
            named = [name for name in nxt.input if name != output and name in arrays and name.endswith(".bias")]
            return named[0] if len(named) == 1 else None
        if nxt.op_type not in _PASSING:
            return None
        output = nxt.output[0]
    return None


def _weight_scale(node: Any, consumers: dict[str, list[Any]], producers: dict[str, Any],
                  arrays: dict[str, np.ndarray]) -> str | None:
    """The weight's own scale: an initializer multiplied, on the way to the bias, with the activations' scale
    (the quantiser writes `Mul(activation scale, weight scale)` and multiplies the product by that)."""
    output = node.output[0]
    for _ in range(8):
        following = consumers.get(output, [])
        if len(following) != 1 or following[0].op_type not in _PASSING:
            return None
        nxt = following[0]
        for name in nxt.input:
            if name == output:
                continue
            if name in arrays and arrays[name].dtype == np.float32:
                return name
            factor = producers.get(name)
            if factor is not None and factor.op_type == "Mul":
                found = [part for part in factor.input if part in arrays and arrays[part].dtype == np.float32]
                if len(found) == 1:
                    return found[0]
        output = nxt.output[0]
    return None


def _dequantized(values: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    """(values - zero point) * scale, per tensor or per output channel (the last axis): uint8 around 128 and
    int8 around 0 alike."""
    return ((values.astype(np.int32) - zero_point.astype(np.int32)) * scale).astype(np.float32)
