#!/usr/bin/env python3
"""Minimal TFLite -> ONNX converter for MediaPipe's pose/hand models.

Covers exactly the op set of pose_detection, pose_landmark_full, hand_landmark_full
and palm_detection_full (mediapipe 0.10.14): ADD CONCATENATION CONV_2D DENSIFY
DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE FULLY_CONNECTED LOGISTIC MAX_POOL_2D
MEAN PAD PRELU RESHAPE RESIZE_BILINEAR. Anything else raises.

Sparse (DENSIFY) and float16 (DEQUANTIZE) weights are folded into dense constants at
conversion time. 4-D activations are kept NCHW inside the ONNX graph; the graph
input/outputs keep the TFLite NHWC layout, so callers feed/read the same tensors as
with TFLite.

Needs: numpy, onnx, tflite (pure-python flatbuffer reader).
Usage: tflite_to_onnx.py IN.tflite OUT.onnx [--outputs Identity,Identity_1] [--f16]
"""
import argparse
import sys

import numpy as np
import onnx
import tflite
from onnx import TensorProto, helper, numpy_helper
from tflite.BuiltinOperator import BuiltinOperator
from tflite.TensorType import TensorType

OPN = {v: k for k, v in BuiltinOperator.__dict__.items() if not k.startswith('_')}
NP_OF = {TensorType.FLOAT32: np.float32, TensorType.FLOAT16: np.float16,
         TensorType.INT32: np.int32, TensorType.INT64: np.int64,
         TensorType.UINT8: np.uint8, TensorType.INT8: np.int8}
TO_NCHW = [0, 3, 1, 2]
TO_NHWC = [0, 2, 3, 1]


def _vec(tab, typ):
    cls = {1: tflite.Int32Vector, 2: tflite.Uint16Vector, 3: tflite.Uint8Vector}[typ]
    v = cls()
    v.Init(tab.Bytes, tab.Pos)
    return v.ValuesAsNumpy()


def densify(t, raw, dtype):
    """Decode a TFLite sparse tensor (TACO-style dim metadata) into a dense array."""
    sp = t.Sparsity()
    shape = list(t.ShapeAsNumpy())
    order = list(sp.TraversalOrderAsNumpy())
    if sp.BlockMapLength():
        raise NotImplementedError('block-sparse tensors')
    vals = np.frombuffer(raw, dtype=dtype)
    out = np.zeros(shape, dtype=dtype)
    dims = []
    for d in range(sp.DimMetadataLength()):
        dm = sp.DimMetadata(d)
        if dm.Format() == 0:
            dims.append(('D', dm.DenseSize()))
        else:
            dims.append(('S', _vec(dm.ArraySegments(), dm.ArraySegmentsType()),
                         _vec(dm.ArrayIndices(), dm.ArrayIndicesType())))
    idx = [0] * len(shape)

    def rec(level, pos):
        if level == len(dims):
            out[tuple(idx)] = vals[pos]
            return
        d = dims[level]
        if d[0] == 'D':
            for i in range(d[1]):
                idx[order[level]] = i
                rec(level + 1, pos * d[1] + i)
        else:
            seg, ind = d[1], d[2]
            for k in range(seg[pos], seg[pos + 1]):
                idx[order[level]] = int(ind[k])
                rec(level + 1, k)
    rec(0, 0)
    return out


def same_pads(in_hw, k_hw, s_hw, d_hw):
    pads_b, pads_e = [], []
    for i, k, s, d in zip(in_hw, k_hw, s_hw, d_hw):
        ek = (k - 1) * d + 1
        out = -(-i // s)
        total = max((out - 1) * s + ek - i, 0)
        pads_b.append(total // 2)
        pads_e.append(total - total // 2)
    return pads_b + pads_e


class Conv:
    def __init__(self, path, keep_f16=False, wanted_outputs=None):
        buf = open(path, 'rb').read()
        self.m = tflite.Model.GetRootAsModel(buf, 0)
        self.g = self.m.Subgraphs(0)
        self.keep_f16 = keep_f16
        self.codes = []
        for i in range(self.m.OperatorCodesLength()):
            oc = self.m.OperatorCodes(i)
            c = max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())
            self.codes.append(OPN[c] if OPN[c] != 'CUSTOM' else 'CUSTOM:' + oc.CustomCode().decode())
        self.nodes, self.inits = [], []
        self.const = {}      # tflite tensor index -> numpy array
        self.name = {}       # tflite tensor index -> onnx value name
        self.nchw = {}       # tflite tensor index -> True when stored NCHW
        self.tcache = {}
        self.uid = 0
        self.wanted = wanted_outputs

    # ---------- helpers
    def T(self, i):
        return self.g.Tensors(i)

    def tname(self, i):
        return self.T(i).Name().decode()

    def shape(self, i):
        t = self.T(i)
        return [int(x) for x in t.ShapeAsNumpy()] if t.ShapeLength() else []

    def fresh(self, base):
        self.uid += 1
        return f'{base}__{self.uid}'

    def load_const(self, i):
        if i in self.const:
            return self.const[i]
        t = self.T(i)
        b = self.m.Buffers(t.Buffer())
        if b is None or b.DataLength() == 0:
            return None
        raw = b.DataAsNumpy().tobytes()
        dt = NP_OF[t.Type()]
        if t.Sparsity() is not None:
            arr = densify(t, raw, dt)
        else:
            arr = np.frombuffer(raw, dtype=dt).reshape(self.shape(i)).copy()
        self.const[i] = arr
        return arr

    def init(self, arr, base):
        n = self.fresh(base)
        if arr.dtype == np.float16 and not self.keep_f16:
            arr = arr.astype(np.float32)
        if arr.dtype == np.float16:
            self.inits.append(numpy_helper.from_array(arr, n + '_f16'))
            self.nodes.append(helper.make_node('Cast', [n + '_f16'], [n], to=TensorProto.FLOAT))
        else:
            self.inits.append(numpy_helper.from_array(arr, n))
        return n

    def node(self, op, ins, base, **attrs):
        out = self.fresh(base)
        self.nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def get(self, i, layout):
        """ONNX name of tflite tensor i in 'nhwc' (tflite-native) or 'nchw' layout."""
        if i in self.const and i not in self.name:
            arr = self.const[i]
            if layout == 'nchw' and arr.ndim == 4:
                arr = arr.transpose(TO_NCHW)
            return self.init(arr, self.tname(i))
        n = self.name[i]
        is_nchw = self.nchw.get(i, False)
        if len(self.shape(i)) != 4 or (layout == 'nchw') == is_nchw:
            return n
        key = (i, layout)
        if key not in self.tcache:
            perm = TO_NHWC if is_nchw else TO_NCHW
            self.tcache[key] = self.node('Transpose', [n], n + '_' + layout, perm=perm)
        return self.tcache[key]

    def set(self, i, onnx_name, nchw):
        self.name[i] = onnx_name
        self.nchw[i] = nchw and len(self.shape(i)) == 4

    def act(self, x, a, base):
        if a == 0:
            return x
        if a == 1:
            return self.node('Relu', [x], base + '_relu')
        if a == 3:
            lo = self.init(np.array(0, np.float32), 'zero')
            hi = self.init(np.array(6, np.float32), 'six')
            return self.node('Clip', [x, lo, hi], base + '_relu6')
        raise NotImplementedError(f'fused activation {a}')

    def opts(self, op, cls):
        o = op.BuiltinOptions()
        x = cls()
        x.Init(o.Bytes, o.Pos)
        return x

    # ---------- conversion
    def needed_ops(self, outs):
        prod = {}
        for oi in range(self.g.OperatorsLength()):
            op = self.g.Operators(oi)
            for j in range(op.OutputsLength()):
                prod[op.Outputs(j)] = oi
        need, stack = set(), list(outs)
        while stack:
            t = stack.pop()
            if t in prod and prod[t] not in need:
                need.add(prod[t])
                op = self.g.Operators(prod[t])
                stack += [op.Inputs(j) for j in range(op.InputsLength()) if op.Inputs(j) >= 0]
        return need

    def run(self):
        g = self.g
        outs = [int(o) for o in g.OutputsAsNumpy()]
        if self.wanted:
            by = {self.tname(o): o for o in outs}
            outs = [by[w] for w in self.wanted]
        need = self.needed_ops(outs)
        inputs = []
        for i in g.InputsAsNumpy():
            inputs.append(helper.make_tensor_value_info(self.tname(i), TensorProto.FLOAT, self.shape(i)))
            self.set(i, self.tname(i), False)
        for oi in range(g.OperatorsLength()):
            if oi in need:
                self.convert(g.Operators(oi))
        outputs = []
        for o in outs:
            src = self.get(o, 'nhwc')
            self.nodes.append(helper.make_node('Identity', [src], [self.tname(o)]))
            outputs.append(helper.make_tensor_value_info(self.tname(o), TensorProto.FLOAT, self.shape(o)))
        graph = helper.make_graph(self.nodes, 'mediapipe', inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)],
                                  producer_name='mp_tflite2onnx')
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model

    def convert(self, op):
        kind = self.codes[op.OpcodeIndex()]
        ins = [op.Inputs(j) for j in range(op.InputsLength())]
        out = op.Outputs(0)
        base = self.tname(out)
        for i in ins:
            if i >= 0:
                self.load_const(i)
        const_in = [i >= 0 and i in self.const and i not in self.name for i in ins]

        if kind in ('DEQUANTIZE', 'DENSIFY'):
            if not const_in[0]:
                raise NotImplementedError(f'{kind} of a non-constant')
            v = self.const[ins[0]]
            self.const[out] = v  # float16 kept; init() widens it unless --f16
            return
        if kind == 'CONV_2D' or kind == 'DEPTHWISE_CONV_2D':
            if kind == 'CONV_2D':
                o = self.opts(op, tflite.Conv2DOptions)
                w = self.const[ins[1]].transpose(0, 3, 1, 2)          # OHWI -> OIHW
                group = 1
            else:
                o = self.opts(op, tflite.DepthwiseConv2DOptions)
                cin = self.shape(ins[0])[3]
                w = self.const[ins[1]]                                   # 1,H,W,C*M
                w = w.transpose(3, 0, 1, 2)                              # C*M,1,H,W
                group = cin
            ih, iw = self.shape(ins[0])[1:3]
            k = list(w.shape[2:])
            s = [o.StrideH(), o.StrideW()]
            d = [o.DilationHFactor(), o.DilationWFactor()]
            pads = same_pads([ih, iw], k, s, d) if o.Padding() == 0 else [0, 0, 0, 0]
            xs = [self.get(ins[0], 'nchw'), self.init(w, base + '_w')]
            if len(ins) > 2 and ins[2] >= 0:
                xs.append(self.init(self.const[ins[2]], base + '_b'))
            y = self.node('Conv', xs, base, kernel_shape=k, strides=s, dilations=d,
                          pads=pads, group=group)
            self.set(out, self.act(y, o.FusedActivationFunction(), base), True)
            return
        if kind == 'MAX_POOL_2D':
            o = self.opts(op, tflite.Pool2DOptions)
            ih, iw = self.shape(ins[0])[1:3]
            k = [o.FilterHeight(), o.FilterWidth()]
            s = [o.StrideH(), o.StrideW()]
            pads = same_pads([ih, iw], k, s, [1, 1]) if o.Padding() == 0 else [0, 0, 0, 0]
            y = self.node('MaxPool', [self.get(ins[0], 'nchw')], base, kernel_shape=k,
                          strides=s, pads=pads)
            self.set(out, self.act(y, o.FusedActivationFunction(), base), True)
            return
        if kind in ('ADD', 'PRELU'):
            r = len(self.shape(out))
            lay = 'nchw' if r == 4 and any(self.nchw.get(i, False) for i in ins if i in self.name) else 'nhwc'
            xs = []
            for i, c in zip(ins, const_in):
                if c:
                    v = self.const[i].astype(np.float32)
                    if lay == 'nchw':
                        v = v.reshape([1] * (4 - v.ndim) + list(v.shape)).transpose(TO_NCHW)
                    xs.append(self.init(v, base + '_k'))
                else:
                    xs.append(self.get(i, lay))
            if kind == 'ADD':
                o = self.opts(op, tflite.AddOptions)
                y = self.act(self.node('Add', xs, base), o.FusedActivationFunction(), base)
            else:
                y = self.node('PRelu', xs, base)
            self.set(out, y, lay == 'nchw')
            return
        if kind == 'LOGISTIC':
            lay = 'nchw' if self.nchw.get(ins[0], False) else 'nhwc'
            self.set(out, self.node('Sigmoid', [self.get(ins[0], lay)], base), lay == 'nchw')
            return
        if kind == 'PAD':
            p = self.const[ins[1]].astype(np.int64)                      # [rank,2] nhwc order
            if len(p) == 4:
                p = p[TO_NCHW]
                x = self.get(ins[0], 'nchw')
            else:
                x = self.get(ins[0], 'nhwc')
            pads = self.init(np.concatenate([p[:, 0], p[:, 1]]), base + '_pads')
            self.set(out, self.node('Pad', [x, pads], base), len(p) == 4)
            return
        if kind == 'RESIZE_BILINEAR':
            o = self.opts(op, tflite.ResizeBilinearOptions)
            n, _, _, c = self.shape(ins[0])
            h, w = [int(v) for v in self.const[ins[1]]]
            mode = 'align_corners' if o.AlignCorners() else (
                'half_pixel' if o.HalfPixelCenters() else 'asymmetric')
            sizes = self.init(np.array([n, c, h, w], np.int64), base + '_sizes')
            y = self.node('Resize', [self.get(ins[0], 'nchw'), '', '', sizes], base,
                          mode='linear', coordinate_transformation_mode=mode)
            self.set(out, y, True)
            return
        if kind == 'DEPTH_TO_SPACE':
            o = self.opts(op, tflite.DepthToSpaceOptions)
            y = self.node('DepthToSpace', [self.get(ins[0], 'nchw')], base,
                          blocksize=o.BlockSize(), mode='DCR')
            self.set(out, y, True)
            return
        if kind == 'RESHAPE':
            shp = self.init(np.array(self.shape(out), np.int64), base + '_shape')
            self.set(out, self.node('Reshape', [self.get(ins[0], 'nhwc'), shp], base), False)
            return
        if kind == 'CONCATENATION':
            o = self.opts(op, tflite.ConcatenationOptions)
            r = len(self.shape(out))
            axis = o.Axis() % r
            lay = 'nchw' if r == 4 and all(self.nchw.get(i, False) for i in ins) else 'nhwc'
            if lay == 'nchw':
                axis = TO_NCHW.index(axis)
            y = self.node('Concat', [self.get(i, lay) for i in ins], base, axis=axis)
            self.set(out, self.act(y, o.FusedActivationFunction(), base), lay == 'nchw')
            return
        if kind == 'MEAN':
            o = self.opts(op, tflite.ReducerOptions)
            r = len(self.shape(ins[0]))
            axes = [int(a) % r for a in self.const[ins[1]].reshape(-1)]
            lay = 'nchw' if self.nchw.get(ins[0], False) else 'nhwc'
            if lay == 'nchw':
                axes = [TO_NCHW.index(a) for a in axes]
            keep = bool(o.KeepDims())
            y = self.node('ReduceMean', [self.get(ins[0], lay)], base, axes=sorted(axes),
                          keepdims=int(keep))
            self.set(out, y, lay == 'nchw' and keep)
            return
        if kind == 'FULLY_CONNECTED':
            o = self.opts(op, tflite.FullyConnectedOptions)
            w = self.const[ins[1]].astype(np.float32)                    # [O,K]
            x = self.get(ins[0], 'nhwc')
            flat = self.init(np.array([-1, w.shape[1]], np.int64), base + '_flat')
            x = self.node('Reshape', [x, flat], base + '_in')
            xs = [x, self.init(w, base + '_w')]
            if len(ins) > 2 and ins[2] >= 0:
                xs.append(self.init(self.const[ins[2]].astype(np.float32), base + '_b'))
            y = self.node('Gemm', xs, base, transB=1)
            y = self.act(y, o.FusedActivationFunction(), base)
            if o.KeepNumDims():
                shp = self.init(np.array(self.shape(out), np.int64), base + '_oshape')
                y = self.node('Reshape', [y, shp], base + '_out')
            self.set(out, y, False)
            return
        raise NotImplementedError(f'op {kind}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('src')
    ap.add_argument('dst')
    ap.add_argument('--outputs', help='comma-separated TFLite output names to keep (prunes the rest)')
    ap.add_argument('--f16', action='store_true', help='keep float16 weights (+Cast) to halve the file')
    a = ap.parse_args()
    c = Conv(a.src, keep_f16=a.f16, wanted_outputs=a.outputs.split(',') if a.outputs else None)
    model = c.run()
    onnx.save(model, a.dst)
    ops = sorted({n.op_type for n in model.graph.node})
    print(f'{a.src} -> {a.dst}: {len(model.graph.node)} nodes, ops {ops}', file=sys.stderr)


if __name__ == '__main__':
    main()
