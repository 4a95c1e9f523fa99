// The real inputs the ONNX Runtime oracle feeds a float graph input (onnx_oracle.js): seeded U(−1, 1) by default, or
// what a model list line asks with `--oracle-input NAME=KIND` for a model whose outputs mean something only on a
// realistic input (tests/oracle/README.md):
//   uniform:LO,HI  the same seeded draws mapped to U(LO, HI) (a style-transfer net's pixels: uniform:0,255);
//   text-image     a page of dark glyph strokes on white, three lines of 8-pixel-wide glyphs (N, 3, H, W), normalised
//                  as PaddleOCR's detectors are fed, (v − mean) / std with ImageNet's mean and std per channel.
'use strict';

// Seeded U(−1, 1) values (a 32-bit LCG, the same on every machine).
function uniformValues(count, seed) {
  let state = (seed * 2654435761) >>> 0;
  const values = new Float64Array(count);
  for (let i = 0; i < count; ++i) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    values[i] = state / 2147483648 - 1;
  }
  return values;
}

// Whether pixel (y, x) of an H×W page is ink: glyphs 5 pixels wide in 7-pixel cells, 9 rows tall, on lines
// starting every H/3 rows; each glyph two verticals and three bars, the bottom bar on every other 8-column block.
function ink(y, x, height, width) {
  const lineHeight = Math.floor(height / 3);
  const top = Math.floor(y / lineHeight) * lineHeight + Math.floor((lineHeight - 9) / 2);
  const gy = y - top, gx = (x - 4) % 7;
  if (gy < 0 || gy >= 9 || x < 4 || x >= width - 4) return false;
  return gx === 0 || gx === 4 || (gx < 5 && (gy === 0 || gy === 4 || (gy === 8 && ((x >> 3) & 1) === 1)));
}

function textImage(shape) {
  const [n, channels, height, width] = shape;
  if (shape.length !== 4 || channels !== 3) throw new Error(`text-image needs an (N, 3, H, W) input, not (${shape})`);
  const mean = [0.485, 0.456, 0.406], std = [0.229, 0.224, 0.225];
  const values = new Float64Array(n * 3 * height * width);
  for (let i = 0; i < values.length; ++i) {
    const x = i % width, y = Math.floor(i / width) % height, c = Math.floor(i / (width * height)) % 3;
    values[i] = ((ink(y, x, height, width) ? 0.05 : 0.95) - mean[c]) / std[c];
  }
  return values;
}

// The values of a float input of `shape`: `kind` from --oracle-input (undefined: U(−1, 1)), `seed` for the draws.
function inputValues(kind, shape, seed) {
  const count = shape.reduce((a, b) => a * b, 1);
  if (!kind) return uniformValues(count, seed);
  const uniform = /^uniform:([-+0-9.e]+),([-+0-9.e]+)$/.exec(kind);
  if (uniform) {
    const low = Number(uniform[1]), high = Number(uniform[2]);
    return uniformValues(count, seed).map(v => low + (v + 1) / 2 * (high - low));
  }
  if (kind === 'text-image') return textImage(shape);
  throw new Error(`--oracle-input: unknown kind '${kind}' (expected uniform:LO,HI or text-image)`);
}

module.exports = { inputValues };
