// The ONNX Runtime oracle (tests/oracle/README.md): for each ONNX model, ONNX Runtime (npm's onnxruntime-node, a
// test-only dependency) runs a seeded real input and gives every float tensor of the graph; the toolkit runs the same
// input through `maeri verify --chain --outputs DIR --all-tensors` (or --references-only: the integer reference,
// which the chained run holds the RTL to bit for bit, without co-simulating). The toolkit is given the real input
// only: where the importer cut the graph, the chained run computes the cut tensor by its float reference
// (testbench/float_computed_inputs.hpp). Only when it cannot (a node it does not evaluate) is the cut tensor fed with
// ONNX Runtime's value, so every tensor the toolkit computes comes from the real input. Checked:
//   (a) every tensor the toolkit computes that the model names: the float reference within 1e-4 of ONNX Runtime,
//       relative to the tensor's largest |value| (never tighter than 2^−22 absolute: kFloat32Floor);
//   (b) every final output of the model the toolkit computes: the integer result dequantized at cosine ≥ 0.99 with
//       ONNX Runtime (a one-element output: |error| ≤ 1 % of |value| or one quantization step).
// Usage: node onnx_oracle.js --maeri BIN --expose BIN --hardware HW.yaml --work DIR [--references-only] [--json F]
//          MODELS.txt   (one model a line: PATH [maeri import options…] [--oracle-integers NAME=V1,V2,…]
//          [--oracle-input NAME=KIND]; '#' comments; ${VAR} from the environment). An integer graph input is all ones
//          unless --oracle-integers gives its values (repeated to its size): token ids, say, so that an encoder's
//          positions differ. A float input is seeded U(−1, 1) unless --oracle-input names a realistic kind
//          (oracle_inputs.js: uniform:LO,HI, text-image).
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const ort = require('onnxruntime-node');
const { readNpy, writeNpy, writeNpz } = require('./npy.js');
const { inputValues } = require('./oracle_inputs.js');

const kFloatTolerance = 1e-4, kCosineTarget = 0.99;
// ONNX Runtime computes in float32, whose step at 1 is 2^−23: a function evaluated with intermediates of order 1 is
// off by a few of those steps in absolute terms however small its result (its Sigmoid gives 0 for σ(−15.79) =
// 1.39e-7 on yolox_nano, and below σ(−18) everywhere). So a tensor's agreement is 1e-4 of its largest |value|, but
// never tighter than two such steps.
const kFloat32Floor = 2 ** -22;
const kSessionOptions = { logSeverityLevel: 3 };  // errors only: exporters' initializers listed as inputs warn

function parseArguments(argv) {
  const options = { referencesOnly: false, json: '' };
  const positional = [];
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    if (flag === '--references-only') options.referencesOnly = true;
    else if (flag.startsWith('--')) options[flag.slice(2).replace(/-(.)/g, (_, c) => c.toUpperCase())] = argv[++i];
    else positional.push(flag);
  }
  options.list = positional[0];
  return options;
}

// The models of a list file: { file, options: [maeri import options], integers: { NAME: [values] } }.
function readModelList(file) {
  const expand = text => text.replace(/\$\{(\w+)\}/g, (_, name) => process.env[name] || '');
  const entry = words => {
    const options = [], integers = {}, inputs = {};
    for (let i = 1; i < words.length; ++i) {
      if (words[i] === '--oracle-input') {
        const [name, kind] = (words[++i] || '').split('=');
        if (!name || !kind) throw new Error(`${file}: '--oracle-input ${words[i]}': expected NAME=KIND`);
        inputs[name] = kind;
        continue;
      }
      if (words[i] !== '--oracle-integers') { options.push(words[i]); continue; }
      const [name, values] = (words[++i] || '').split('=');
      const numbers = (values || '').split(',').map(Number);
      if (!name || numbers.some(v => !Number.isInteger(v))) throw new Error(`${file}: '--oracle-integers ${words[i]}': expected NAME=V1,V2,… (integers)`);
      integers[name] = numbers;
    }
    return { file: words[0], options, integers, inputs };
  };
  return fs.readFileSync(file, 'utf8').split('\n').map(line => line.replace(/#.*/, '').trim()).filter(line => line)
    .map(line => entry(expand(line).split(/\s+/)));
}

// What `maeri import` says: the network's inputs (name, shape), its layers and skipped nodes.
function importModel(maeri, model, options, work) {
  const yaml = path.join(work, 'model.yaml');
  const run = spawnSync(maeri, ['import', model, '-o', yaml, ...options], { encoding: 'utf8' });
  if (run.status !== 0) return { error: (run.stderr || run.stdout).trim().split('\n').pop() };
  const text = fs.readFileSync(yaml, 'utf8');
  const counts = /\((\d+) layers?; (\d+) nodes? skipped/.exec(text) || [0, 0, 0];
  const inputs = [];
  const block = /\ninputs:\n((?:  - .*\n)+)/.exec(text);
  for (const line of block ? block[1].split('\n') : []) {
    const found = /name: ("(?:[^"\\]|\\.)*"|'[^']*'|[^,]+), shape: \[([^\]]*)\]/.exec(line);
    if (!found) continue;
    let name = found[1];
    if (name.startsWith('"')) name = JSON.parse(name);
    else if (name.startsWith("'")) name = name.slice(1, -1);
    inputs.push({ name, shape: found[2].split(',').map(Number) });
  }
  return { inputs, layers: Number(counts[1]), skipped: Number(counts[2]) };
}

// The ONNX graph inputs' values: the shape the toolkit resolved (or the model's, dynamic dimensions 1), seeded (or
// the kind `kinds` names: oracle_inputs.js); an integer input all ones, or the values `integers` gives it, repeated
// to its size.
function graphFeeds(session, imported, seed, integers, kinds) {
  const feeds = {}, arrays = {};
  session.inputNames.forEach((name, index) => {
    const meta = session.inputMetadata[index];
    const known = imported.inputs.find(input => input.name === name);
    const shape = known ? known.shape : meta.shape.map(d => (typeof d === 'number' && d > 0 ? d : 1));
    const count = shape.reduce((a, b) => a * b, 1);
    // A scalar graph input (one token id) is a tensor of one element to the toolkit (a workload tensor has rank ≥ 1).
    const runtimeShape = meta.shape.length === 0 ? [] : shape;
    if (meta.type !== 'float32') {  // an integer control input (a sample rate, a step), attention mask or token ids
      const given = integers[name] || [1];
      const values = Array.from({ length: count }, (_, i) => given[i % given.length]);
      feeds[name] = new ort.Tensor(meta.type, meta.type === 'int64' ? BigInt64Array.from(values, BigInt)
        : Int32Array.from(values), runtimeShape);
      // The toolkit reads it too when it is one of its network inputs (a mask cast to float): the same values.
      if (known) arrays[name] = { shape, data: Float64Array.from(values) };
      return;
    }
    const values = inputValues(kinds[name], shape, seed + index);
    feeds[name] = new ort.Tensor('float32', Float32Array.from(values), runtimeShape);
    arrays[name] = { shape, data: Float64Array.from(Float32Array.from(values)) };
  });
  return { feeds, arrays };
}

async function runOnnxRuntime(model, exposedModel, imported, seed, integers, kinds) {
  const original = await ort.InferenceSession.create(model, kSessionOptions);
  const session = await ort.InferenceSession.create(exposedModel, kSessionOptions);
  const { feeds, arrays } = graphFeeds(session, imported, seed, integers, kinds);
  const results = await session.run(feeds);
  const tensors = {};
  for (const [name, tensor] of Object.entries(results))
    if (tensor.type === 'float32') tensors[name] = { shape: tensor.dims.map(Number), data: Float64Array.from(tensor.data) };
  return { finalOutputs: original.outputNames, inputs: arrays, tensors };
}

// The toolkit's network inputs: a graph input's seeded value, or (withCuts) a cut tensor's value from ONNX Runtime.
function toolkitFeeds(imported, reference, withCuts) {
  const members = {}, fromRuntime = [], missing = [];
  for (const input of imported.inputs) {
    const count = input.shape.reduce((a, b) => a * b, 1);
    if (!withCuts && !reference.inputs[input.name]) continue;
    const given = reference.inputs[input.name] || reference.tensors[input.name];
    if (!given || given.data.length !== count) { missing.push(input.name); continue; }
    members[input.name] = { shape: input.shape, data: given.data };
    if (!reference.inputs[input.name]) fromRuntime.push(input.name);
  }
  return { members, fromRuntime, missing };
}

function maxAbs(values) { let m = 0; for (const v of values) m = Math.max(m, Math.abs(v)); return m; }

// The largest |difference| relative to the expected tensor's largest |value| (`relative`), and whether it is within
// kFloatTolerance of it or kFloat32Floor (`agrees`).
function floatAgreement(values, expected) {
  let worst = 0;
  for (let i = 0; i < values.length; ++i) worst = Math.max(worst, Math.abs(values[i] - expected[i]));
  const range = maxAbs(expected);
  return { relative: range > 0 ? worst / range : worst, agrees: worst <= Math.max(kFloatTolerance * range, kFloat32Floor) };
}

function cosine(a, b) {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; ++i) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  if (na === 0 && nb === 0) return 1;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

// (a) and (b) on the tensors the toolkit wrote into `outputs` (tensors.json).
function compare(outputs, reference, fedFromRuntime) {
  const index = JSON.parse(fs.readFileSync(path.join(outputs, 'tensors.json'), 'utf8'));
  const written = new Map(index.map(entry => [entry.tensor, entry]));
  const result = { floatCompared: 0, floatWorst: 0, floatWorstTensor: '', floatFailures: [], finals: [] };
  for (const entry of index) {
    const expected = reference.tensors[entry.tensor];
    // A network input is compared too when the toolkit computed it (the float reference of a skipped node).
    if (!expected || reference.inputs[entry.tensor] || fedFromRuntime.includes(entry.tensor)) continue;
    const file = path.join(outputs, `${entry.file}.float.npy`);
    if (!fs.existsSync(file)) continue;
    const mine = readNpy(file).data;
    if (mine.length !== expected.data.length) continue;
    const { relative: error, agrees } = floatAgreement(mine, expected.data);
    result.floatCompared += 1;
    if (error > result.floatWorst) { result.floatWorst = error; result.floatWorstTensor = entry.tensor; }
    if (!agrees) result.floatFailures.push(`${entry.tensor} (${error.toExponential(2)})`);
  }
  for (const name of reference.finalOutputs) {
    const entry = written.get(name), expected = reference.tensors[name];
    if (!entry || !expected || entry.role === 'input' || fedFromRuntime.includes(name)) {
      result.finals.push({ name, computed: false });
      continue;
    }
    const mine = readNpy(path.join(outputs, `${entry.file}.real.npy`)).data;
    if (mine.length === 1) {
      const error = Math.abs(mine[0] - expected.data[0]);
      const ok = error <= Math.max(0.01 * Math.abs(expected.data[0]), entry.scale);
      result.finals.push({ name, computed: true, error, value: expected.data[0], ok });
    } else {
      const c = cosine(mine, expected.data);
      result.finals.push({ name, computed: true, cosine: c, ok: c >= kCosineTarget });
    }
  }
  return result;
}

function runToolkit(options, model, modelOptions, feedsPath, outputs) {
  fs.rmSync(outputs, { recursive: true, force: true });
  const command = ['verify', '--chain', '--hardware', options.hardware, '--workload', model, '--memory', 'ideal',
    '--network-input', feedsPath, '--outputs', outputs, '--all-tensors', ...modelOptions];
  if (options.referencesOnly) command.push('--references-only');
  const run = spawnSync(options.maeri, command, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const lines = (run.stdout || '').trim().split('\n');
  const computed = /(\d+) tensors? computed by the float reference/.exec(run.stdout || '');
  return { status: run.status, verdict: lines.filter(l => l.startsWith('network ')).pop() || (run.stderr || '').trim(),
    floatComputed: computed ? Number(computed[1]) : 0 };
}

async function checkModel(options, entry, number) {
  const name = path.basename(entry.file, '.onnx');
  const work = path.join(options.work, `${number}-${name}`);
  fs.mkdirSync(work, { recursive: true });
  const record = { model: name, file: entry.file, imported: false, oracleInputs: entry.inputs };
  const imported = importModel(options.maeri, entry.file, entry.options, work);
  if (imported.error) return Object.assign(record, { error: imported.error });
  Object.assign(record, { imported: true, layers: imported.layers, skipped: imported.skipped });
  const exposed = path.join(work, 'exposed.onnx');
  execFileSync(options.expose, [entry.file, exposed], { stdio: 'ignore' });
  const reference = await runOnnxRuntime(entry.file, exposed, imported, Number(options.seed || 1), entry.integers,
    entry.inputs);
  // The real input alone first (the toolkit computes its cut tensors); ONNX Runtime's cut tensors only if it cannot.
  let feeds = toolkitFeeds(imported, reference, false);
  const feedsPath = path.join(work, 'feeds.npz');
  writeNpz(feedsPath, feeds.members);
  let run = runToolkit(options, entry.file, entry.options, feedsPath, path.join(work, 'outputs'));
  if (run.status !== 0 && imported.inputs.some(input => !reference.inputs[input.name])) {
    feeds = toolkitFeeds(imported, reference, true);
    if (feeds.missing.length) return Object.assign(record, { error: `no value for input(s) ${feeds.missing.join(', ')}` });
    writeNpz(feedsPath, feeds.members);
    run = runToolkit(options, entry.file, entry.options, feedsPath, path.join(work, 'outputs'));
  }
  record.fedFromRuntime = feeds.fromRuntime;
  record.computedByFloatReference = run.floatComputed;
  Object.assign(record, { status: run.status, verdict: run.verdict });
  if (run.status !== 0) return Object.assign(record, { error: `maeri verify --chain exited ${run.status}: ${run.verdict}` });
  return Object.assign(record, compare(path.join(work, 'outputs'), reference, feeds.fromRuntime));
}

function describe(record) {
  if (record.error) return `${record.model}: ${record.imported ? 'ERROR' : 'NOT IMPORTED'}: ${record.error}`;
  const finals = record.finals.map(f => !f.computed ? `${f.name}: not computed (cut)`
    : f.cosine !== undefined ? `${f.name}: cosine ${f.cosine.toFixed(5)}${f.ok ? '' : ' < 0.99'}`
    : `${f.name}: |error| ${f.error.toExponential(2)} of ${f.value.toPrecision(4)}${f.ok ? '' : ' (too large)'}`);
  return `${record.model}: ${record.layers} layers, ${record.skipped} nodes cut; float reference on ` +
    `${record.floatCompared} tensors, worst ${record.floatWorst.toExponential(2)} (${record.floatWorstTensor || '-'})` +
    `${record.computedByFloatReference ? `; cut tensors computed by the float reference: ${record.computedByFloatReference}` : ''}` +
    `${record.fedFromRuntime.length ? `; cut tensors fed from ONNX Runtime: ${record.fedFromRuntime.length}` : ''}; ` +
    finals.join('; ');
}

function passes(record) {
  return !record.error && record.floatFailures.length === 0 && record.finals.every(f => !f.computed || f.ok);
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const models = readModelList(options.list);
  const records = [];
  for (let i = 0; i < models.length; ++i) {
    let record;
    try { record = await checkModel(options, models[i], i); } catch (error) {
      record = { model: path.basename(models[i].file), imported: false, error: String(error.message || error) };
    }
    records.push(record);
    console.log(`${passes(record) ? 'PASS' : 'FAIL'} ${describe(record)}`);
  }
  if (options.json) fs.writeFileSync(options.json, JSON.stringify(records, null, 2) + '\n');
  const failed = records.filter(record => !passes(record));
  console.log(`${records.length - failed.length} of ${records.length} models agree with ONNX Runtime`);
  process.exitCode = failed.length ? 1 : 0;
}

if (require.main === module) main();
module.exports = { readModelList, passes, describe };
