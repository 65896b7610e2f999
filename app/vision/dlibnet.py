"""dlib's face recognition ResNet (`dlib_face_recognition_resnet_model_v1.dat`) on onnxruntime: the weights are
read from dlib's own file and laid out as an ONNX graph in memory, so descriptors are dlib's (same keys, same
threshold; within 1e-6 of `compute_face_descriptor`) at about a twentieth of the CPU time of the dlib wheel,
which is built without BLAS.

The file is dlib's DNN serialization: the loss layer, the wrapper versions of every layer (outermost first),
the input layer, then each layer's details from the input up. Only the layers this network uses are read,
and its residual structure (conv, affine, relu, conv, affine, [avg_pool], add_prev, relu) is checked as it is
built. dlib adds tensors of different sizes by zero-padding the smaller at the end: three down-sampling blocks
add a shortcut with fewer channels than their convolutions, and the last two a convolution with fewer rows
and columns than their pooled shortcut (3x3 to 4x4, then 1x1 to 2x2); the graph pads the same way.

onnx and onnxruntime (heavy) are imported where the graph is built and run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.devices import onnx_providers, session_options
from app.errors import ModelError

INPUT = "chip"
OUTPUT = "descriptor"
OPSET = 17
INPUT_SCALE = 256.0  # dlib's input_rgb_image: (pixel - mean) / 256


@dataclass
class DlibNet:
    """The network as read: input normalisation and the layers from the input up."""

    mean_rgb: np.ndarray  # subtracted from each pixel, then divided by INPUT_SCALE
    chip_px: int
    layers: list[tuple[str, dict]] = field(default_factory=list)


class _Reader:
    """dlib's serialize() format: variable-length integers, strings, floats as mantissa and exponent,
    tensors as four dimensions and raw little-endian float32."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def int(self) -> int:
        head = self.data[self.pos]
        size = head & 0x0F
        value = int.from_bytes(self.data[self.pos + 1 : self.pos + 1 + size], "little")
        self.pos += 1 + size
        return -value if head & 0x80 else value

    def str(self) -> str:
        size = self.int()
        self.pos += size
        return self.data[self.pos - size : self.pos].decode("ascii")

    def float(self) -> float:
        mantissa, exponent = self.int(), self.int()
        return math.ldexp(mantissa, exponent) if abs(exponent) < 1100 else math.nan  # nan/inf are coded exponents

    def flags(self, n: int) -> None:
        for _ in range(n):
            if self.data[self.pos : self.pos + 1] not in (b"0", b"1"):
                raise ValueError(f"expected a flag at byte {self.pos}")
            self.pos += 1

    def tensor(self) -> np.ndarray:
        if self.int() != 2:
            raise ValueError(f"unsupported tensor version at byte {self.pos}")
        shape = [self.int() for _ in range(4)]
        count = math.prod(shape)
        values = np.frombuffer(self.data, "<f4", count, self.pos).astype(np.float32)
        self.pos += 4 * count
        return values.reshape(shape)

    def alias(self) -> tuple[int, ...]:
        self.int()  # version
        return tuple(self.int() for _ in range(4))


def _layer(r: _Reader) -> tuple[str, dict]:
    kind = r.str()
    if kind == "con_4":
        params = r.tensor().reshape(-1)
        filters, _rows, _cols, stride, _, pad, _ = (r.int() for _ in range(7))
        shape = r.alias()
        r.alias()
        for _ in range(4):
            r.float()  # learning-rate and weight-decay multipliers
        n = math.prod(shape)
        return "con", {"w": params[:n].reshape(shape), "b": params[n : n + filters], "stride": stride, "pad": pad}
    if kind == "affine_":
        params = r.tensor().reshape(-1)
        r.alias()  # gamma's and beta's views of params
        r.alias()
        r.int()  # mode: per channel
        half = len(params) // 2
        return "affine", {"gamma": params[:half], "beta": params[half:]}
    if kind in ("max_pool_2", "avg_pool_2"):
        size, _, stride, _, pad, _ = (r.int() for _ in range(6))
        return kind[:3] + "pool", {"size": size, "stride": stride, "pad": pad}
    if kind in ("relu_", "add_prev_"):
        return {"relu_": "relu", "add_prev_": "add"}[kind], {}
    if kind == "fc_2":
        outputs, inputs = r.int(), r.int()
        params = r.tensor().reshape(-1)
        r.alias()  # weights' and biases' views of params
        r.alias()
        r.int()  # bias mode: none
        for _ in range(4):
            r.float()  # learning-rate and weight-decay multipliers
        return "fc", {"w": params[: inputs * outputs].reshape(inputs, outputs)}
    raise ValueError(f"layer {kind!r} is not part of dlib's face recognition ResNet")


def read_net(data: bytes) -> DlibNet:
    """Parse dlib's serialized face recognition network (ValueError when the bytes are not that network)."""
    r = _Reader(data)
    if r.int() != 1 or r.str() != "loss_metric_2":
        raise ValueError("not a dlib metric-learning network")
    r.float()  # margin and distance threshold: training only
    r.float()
    while data[r.pos + 2 : r.pos + 7] != b"input":  # the layer wrappers' versions, up to the input layer's name
        r.int()
        if r.pos > 4096:
            raise ValueError("no input layer")
    if r.str() != "input_rgb_image_sized":
        raise ValueError("not an RGB-input network")
    net = DlibNet(np.array([r.float() for _ in range(3)], np.float32), r.int())
    r.int()  # columns: the chip is square
    first = True
    while r.pos < len(data):
        net.layers.append(_layer(r))
        r.flags(3)  # set up, gradient stale, output disabled
        for _ in range(3):
            r.tensor()  # gradients and cached output, empty in a saved network
        if first:
            r.int()  # the input wrapper's sample expansion factor
            first = False
    return net


class _Graph:
    """ONNX nodes with the (channels, rows, columns) of every value, as dlib computes them."""

    def __init__(self) -> None:
        self.nodes: list = []
        self.weights: list = []
        self.shapes: dict[str, tuple[int, int, int]] = {}

    def _name(self, prefix: str) -> str:
        return f"{prefix}{len(self.nodes) + len(self.weights)}"

    def const(self, value: np.ndarray) -> str:
        from onnx import numpy_helper

        name = self._name("w")
        self.weights.append(numpy_helper.from_array(value, name))
        return name

    def add(self, op: str, inputs: list[str], shape: tuple[int, int, int], **attrs) -> str:
        from onnx import helper

        name = self._name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [name], **attrs))
        self.shapes[name] = shape
        return name

    def relu(self, x: str) -> str:
        return self.add("Relu", [x], self.shapes[x])

    def conv(self, x: str, con: dict, affine: dict) -> str:
        """A convolution with the affine (inference batch norm) after it folded into its weights."""
        gamma, beta = affine["gamma"], affine["beta"]
        w = (con["w"] * gamma[:, None, None, None]).astype(np.float32)
        b = (con["b"] * gamma + beta).astype(np.float32)
        k, s, p = w.shape[2], con["stride"], con["pad"]
        _, rows, cols = self.shapes[x]
        shape = (w.shape[0], (rows + 2 * p - k) // s + 1, (cols + 2 * p - k) // s + 1)
        attrs = {"kernel_shape": [k, k], "strides": [s, s], "pads": [p] * 4}
        return self.add("Conv", [x, self.const(w), self.const(b)], shape, **attrs)

    def pool(self, op: str, x: str, pool: dict) -> str:
        k, s = pool["size"], pool["stride"]
        c, rows, cols = self.shapes[x]
        return self.add(op, [x], (c, (rows - k) // s + 1, (cols - k) // s + 1), kernel_shape=[k, k], strides=[s, s])

    def padded_sum(self, a: str, b: str) -> str:
        """a + b as dlib adds tensors: each zero-padded at the end to the larger size in every dimension."""
        target = tuple(max(m, n) for m, n in zip(self.shapes[a], self.shapes[b], strict=True))
        return self.add("Add", [self._pad_to(a, target), self._pad_to(b, target)], target)

    def _pad_to(self, x: str, target: tuple[int, int, int]) -> str:
        grow = [t - n for t, n in zip(target, self.shapes[x], strict=True)]
        if not any(grow):
            return x
        pads = np.array([0, 0, 0, 0, 0, *grow], np.int64)  # ONNX: the starts of (N, C, H, W), then their ends
        return self.add("Pad", [x, self.const(pads)], target)


def _residual_blocks(g: _Graph, x: str, layers: list[tuple[str, dict]]) -> tuple[str, int]:
    """The residual blocks from layers[0] on: (their output, the index of the first layer after them)."""
    kinds = [kind for kind, _ in layers]
    i = 0
    while kinds[i] == "con":
        if kinds[i : i + 5] != ["con", "affine", "relu", "con", "affine"]:
            raise ValueError(f"unexpected residual block at layer {i}: {kinds[i : i + 5]}")
        y = g.relu(g.conv(x, layers[i][1], layers[i + 1][1]))
        y = g.conv(y, layers[i + 3][1], layers[i + 4][1])
        i += 5
        shortcut = x
        if kinds[i] == "avgpool":  # a down-sampling block: its shortcut is the input pooled
            shortcut = g.pool("AveragePool", x, layers[i][1])
            i += 1
        if kinds[i : i + 2] != ["add", "relu"]:
            raise ValueError(f"unexpected end of a residual block at layer {i}: {kinds[i : i + 2]}")
        x = g.relu(g.padded_sum(y, shortcut))
        i += 2
    return x, i


def to_onnx(net: DlibNet) -> bytes:
    """The network as a serialized ONNX model: chip (N, 3, px, px), normalised -> descriptor (N, 128)."""
    from onnx import TensorProto, checker, helper

    layers, kinds = net.layers, [kind for kind, _ in net.layers]
    if kinds[:4] != ["con", "affine", "relu", "maxpool"]:
        raise ValueError(f"unexpected stem: {kinds[:4]}")
    g = _Graph()
    g.shapes[INPUT] = (3, net.chip_px, net.chip_px)
    x = g.pool("MaxPool", g.relu(g.conv(INPUT, layers[0][1], layers[1][1])), layers[3][1])
    x, i = _residual_blocks(g, x, layers[4:])
    if kinds[4 + i :] != ["avgpool", "fc"] or layers[4 + i][1]["size"] != 0:
        raise ValueError(f"unexpected head: {kinds[4 + i :]}")
    channels = g.shapes[x][0]
    pooled = g.add("Flatten", [g.add("GlobalAveragePool", [x], (channels, 1, 1))], (channels, 1, 1))
    g.nodes.append(helper.make_node("MatMul", [pooled, g.const(layers[-1][1]["w"])], [OUTPUT]))
    width = layers[-1][1]["w"].shape[1]
    graph = helper.make_graph(
        g.nodes,
        "dlib_face_recognition_resnet_model_v1",
        [helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, ["n", 3, net.chip_px, net.chip_px])],
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["n", width])],
        g.weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # readable by onnxruntime >= 1.14
    checker.check_model(model)
    return model.SerializeToString()


class DlibResNet:
    """128-d face descriptors of aligned RGB chips (as `dlib.get_face_chip` cuts them), dlib's network on
    onnxruntime."""

    def __init__(self, path: Path, device: str = "cpu", threads: int = 1) -> None:
        try:
            import onnx  # noqa: F401  (builds the graph)
        except ImportError as e:
            raise ModelError("the onnx package is missing: pip install onnx") from e

        try:
            net = read_net(path.read_bytes())
            model = to_onnx(net)
        except (OSError, ValueError, IndexError, ArithmeticError) as e:
            raise ModelError(f"cannot read dlib's face network {path.name}: {e}") from e
        import onnxruntime

        self.chip_px = net.chip_px
        self._mean = net.mean_rgb
        self._sess = onnxruntime.InferenceSession(
            model, sess_options=session_options(threads), providers=list(onnx_providers(device))
        )

    def __call__(self, chips_rgb: np.ndarray) -> np.ndarray:
        """(N, px, px, 3) uint8 RGB chips -> (N, 128) float32 descriptors."""
        x = (chips_rgb.astype(np.float32) - self._mean) / INPUT_SCALE
        return self._sess.run([OUTPUT], {INPUT: np.ascontiguousarray(x.transpose(0, 3, 1, 2))})[0]
