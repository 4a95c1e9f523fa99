// NumPy array files for the ONNX Runtime oracle (tests/oracle/README.md): reads a little-endian C-order .npy of the
// dtypes the toolkit writes (f8, f4, i1, i2, i4, i8), writes float32 / float64 ones, and an .npz of several arrays.
'use strict';
const fs = require('fs');

const kTypes = {
  '<f8': [8, (b, o) => b.readDoubleLE(o)], '<f4': [4, (b, o) => b.readFloatLE(o)],
  '|i1': [1, (b, o) => b.readInt8(o)], '<i2': [2, (b, o) => b.readInt16LE(o)],
  '<i4': [4, (b, o) => b.readInt32LE(o)], '<i8': [8, (b, o) => Number(b.readBigInt64LE(o))],
};

// { shape: [..], data: Float64Array } of an .npy file.
function readNpy(path) {
  const bytes = fs.readFileSync(path);
  if (bytes.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${path}: not an .npy file`);
  const major = bytes[6];
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', start, start + headerLength);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${path}: Fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  const type = kTypes[descr];
  if (!type) throw new Error(`${path}: dtype ${descr} not read here`);
  const count = shape.reduce((a, b) => a * b, 1);
  const data = new Float64Array(count);
  for (let i = 0, o = start + headerLength; i < count; ++i, o += type[0]) data[i] = type[1](bytes, o);
  return { shape, data };
}

// The bytes of an .npy file of `shape` holding `values` as '<f4' (float32 true) or '<f8'.
function npyBytes(shape, values, float32) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${float32 ? '<f4' : '<f8'}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const size = float32 ? 4 : 8;
  const body = Buffer.alloc(values.length * size);
  for (let i = 0; i < values.length; ++i)
    if (float32) body.writeFloatLE(values[i], i * size); else body.writeDoubleLE(values[i], i * size);
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), body]);
}

function writeNpy(path, shape, values, float32 = false) { fs.writeFileSync(path, npyBytes(shape, values, float32)); }

const kCrcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = kCrcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// An .npz of `arrays` ({ member name: { shape, data } }, float64): a zip of stored "<name>.npy" members, written here
// (zip tools strip a leading '/' from member names, and ONNX tensor names often begin with one).
function writeNpz(path, arrays) {
  const locals = [], centrals = [];
  let offset = 0;
  for (const [name, array] of Object.entries(arrays)) {
    const fileName = Buffer.from(`${name}.npy`, 'utf8');
    const data = npyBytes(array.shape, array.data, false);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(0, 8); local.writeUInt16LE(0, 10); local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14); local.writeUInt32LE(data.length, 18); local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26); local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8); central.writeUInt16LE(0, 10); central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14); central.writeUInt32LE(crc, 16); central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24); central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += 30 + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(arrays).length, 8); end.writeUInt16LE(Object.keys(arrays).length, 10);
  end.writeUInt32LE(directory.length, 12); end.writeUInt32LE(offset, 16);
  fs.writeFileSync(path, Buffer.concat([...locals, directory, end]));
}

module.exports = { readNpy, writeNpy, writeNpz };
