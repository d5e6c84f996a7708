"""Make the patch net's 8-bit copy that the reader runs, from the fitted net.

    pip install -e '.[fit]'     # onnx, which ONNX Runtime's quantizer needs
    python3 tools/quantize_stack_net.py vision/stack_net.onnx vision/stack_net_int8.onnx \
        vision/stack_net_layers_int8.onnx DIR [DIR ...]
    python3 tools/quantize_stack_net.py vision/stack_net_steep.onnx vision/stack_net_steep_int8.onnx \
        vision/stack_net_steep_layers_int8.onnx --rise-below 0.27 DIR [DIR ...]     # the steep net
    python3 tools/quantize_stack_net.py vision/stack_net_behind.onnx vision/stack_net_behind_int8.onnx \
        vision/stack_net_behind_layers_int8.onnx DIR [DIR ...]     # the behind net, on every point too

The fitted net (``tools/fit_stack_net.py``) computes in 32-bit floats; its copy with 8-bit
activations and 7-bit weights (ONNX Runtime's static quantization, weights per output
channel, QDQ format) runs in about half the time, and the net is most of what reading a
crowded board costs.  7 bits, not 8: a CPU without 8-bit dot-product instructions (AVX-VNNI)
adds pairs of 8-bit products in 16 bits, which full 8-bit weights overflow, so that a copy
with them read otherwise on an AVX2 machine than on a VNNI one.  The activations' ranges are
measured on the patches of every point of the stills in DIRs (``tacticblue scenes render``),
with the true pose and a little off (:func:`tools.height_data.patches_of`), and set at their
0.001st and 99.999th percentiles, so that a few extreme patches do not coarsen every other's
steps.

The copy is written as two nets (:func:`split`): the heights and top colours, which also give
out their second block's 8-bit features, and the layers' colours from those features.  The
reader asks about layers only on stacks of two or more, and the branch that reads them is a
seventh of the whole net's time.  Each part carries the SHA-256 of the fitted net it was
copied from (:data:`vision.stack_net.FITTED_DIGEST_KEY`), so that a net refitted but not copied again shows.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                      quantize_static)
from onnxruntime.quantization.shape_inference import quant_pre_process

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from height_data import net_patches  # noqa: E402
from vision.stack_net import FITTED_DIGEST_KEY, net_input  # noqa: E402

BATCH = 64


class Patches(CalibrationDataReader):
    """The net's inputs, a batch at a time, as the quantizer's calibration asks for them; the
    last few that do not fill a batch are left out, as the percentile calibrator stacks the
    batches' activations into one array."""

    def __init__(self, inputs: np.ndarray, name: str = "patches") -> None:
        self._batches = iter([{name: inputs[i:i + BATCH]} for i in range(0, len(inputs) - BATCH + 1, BATCH)])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._batches, None)


def keep_used_opsets(path: Path) -> None:
    """Leave in the model at ``path`` only the operator sets its nodes use: the quantizer lists
    every set this ONNX Runtime knows, and an older runtime refuses a newer set's version even
    when no node is of it."""
    model = onnx.load(str(path))
    used = {node.domain for node in model.graph.node}
    kept = [o for o in model.opset_import if o.domain in used or (o.domain == "ai.onnx" and "" in used)]
    del model.opset_import[:]
    model.opset_import.extend(kept)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def split(model: onnx.ModelProto) -> tuple[onnx.ModelProto, onnx.ModelProto]:
    """The quantized net ``model`` as two: ``patches`` -> ``scores`` (heights and top colours)
    and ``features`` (the 8-bit features both its third block and its layer branch read), and
    ``features`` -> ``layers`` (the layer branch's scores).  Each output is the dequantized
    output of its branch's last layer, which the whole net joined and quantized once more."""
    nodes = model.graph.node
    heads, layers = next(n for n in nodes if n.op_type == "Concat").input
    # The features: the 8-bit tensor whose dequantized copy two convolutions read.
    dequantized = {n.output[0]: n.input[0] for n in nodes if n.op_type == "DequantizeLinear"}
    convolved = Counter(n.input[0] for n in nodes if n.op_type == "Conv")
    features = dequantized[next(t for t, count in convolved.items() if count == 2)]
    names = {heads: "scores", features: "features", layers: "layers"}
    return (_part(model, ["patches"], [heads, features], names), _part(model, [features], [layers], names))


def _part(model: onnx.ModelProto, inputs: list[str], outputs: list[str], names: dict[str, str]) -> onnx.ModelProto:
    """The part of ``model`` that computes ``outputs`` from ``inputs``, its tensors named in
    ``names`` renamed."""
    graph = model.graph
    made = {out: node for node in graph.node for out in node.output}
    needed, todo = [], list(outputs)
    while todo:
        tensor = todo.pop()
        node = made.get(tensor)
        if tensor in inputs or node is None or node in needed:
            continue
        needed.append(node)
        todo.extend(node.input)
    order = [n for n in graph.node if n in needed]  # as the graph has them: sorted
    used = {t for n in order for t in n.input}
    typed = onnx.shape_inference.infer_shapes(model).graph
    values = {v.name: v for v in (*typed.input, *typed.value_info, *typed.output)}

    def value(name: str) -> onnx.ValueInfoProto:
        renamed = onnx.ValueInfoProto()
        renamed.CopyFrom(values[name])
        renamed.name = names.get(name, name)
        return renamed

    nodes = []
    for node in order:
        renamed = onnx.NodeProto()
        renamed.CopyFrom(node)
        renamed.input[:] = [names.get(t, t) for t in node.input]
        renamed.output[:] = [names.get(t, t) for t in node.output]
        nodes.append(renamed)
    part = onnx.helper.make_graph(nodes, graph.name, [value(t) for t in inputs], [value(t) for t in outputs],
                                  [i for i in graph.initializer if i.name in used])
    return onnx.helper.make_model(part, opset_imports=model.opset_import, ir_version=model.ir_version)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("fitted", type=Path, help="the fitted net (vision/stack_net.onnx)")
    parser.add_argument("out", type=Path, help="the 8-bit heights net to write (vision/stack_net_int8.onnx)")
    parser.add_argument("layers_out", type=Path,
                        help="the 8-bit layers net to write (vision/stack_net_layers_int8.onnx)")
    parser.add_argument("dirs", nargs="+", help="folders of rendered stills to measure the activations on")
    parser.add_argument("--rise-below", type=float, metavar="R",
                        help="measure them only on the points whose layers rise less than R (the steep net)")
    args = parser.parse_args()
    data = net_patches(args.dirs, args.rise_below)
    inputs = net_input(data["patches"], data["rise"])
    print(f"{len(inputs)} patches", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(args.fitted), str(prepared))
        whole = Path(tmp) / "whole.onnx"
        quantize_static(str(prepared), str(whole), Patches(inputs), quant_format=QuantFormat.QDQ,
                        per_channel=True, reduce_range=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.Percentile,
                        extra_options={"CalibPercentile": 99.999})
        digest = hashlib.sha256(args.fitted.read_bytes()).hexdigest()
        for part, path in zip(split(onnx.load(str(whole))), (args.out, args.layers_out)):
            onnx.helper.set_model_props(part, {FITTED_DIGEST_KEY: digest})
            onnx.save(part, str(path))
            keep_used_opsets(path)
            print(f"-> {path}")


if __name__ == "__main__":
    main()
