// The table of issue 41's targets from the ONNX Runtime oracle's results (onnx_oracle.js --json FILE): per model,
// whether it imports, its fabric layers and cut nodes, whether it runs whole (no node cut), whether it runs from the
// real input alone (every cut tensor computed by the float reference, none fed from ONNX Runtime), the float
// reference's worst relative error against ONNX Runtime, and every final output's agreement; then the totals.
// Usage: node results_table.js RESULTS.json
'use strict';
const fs = require('fs');

function finalText(f) {
  if (!f.computed) return `${f.name}: not computed (cut)`;
  if (f.cosine !== undefined) return `${f.name}: cos ${f.cosine.toFixed(4)}`;
  return `${f.name}: |err| ${f.error.toExponential(1)} of ${f.value.toPrecision(3)}`;
}

// The realistic inputs a model was fed instead of seeded U(−1, 1) (--oracle-input), or ''.
function inputText(r) {
  const kinds = Object.entries(r.oracleInputs || {});
  return kinds.length ? `on ${kinds.map(([name, kind]) => `${name} = ${kind}`).join(', ')}: ` : '';
}

function main() {
  const records = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const rows = [['model', 'imports', 'layers', 'cut nodes', 'whole', 'from the real input', 'float rel. err',
    'final outputs vs ONNX Runtime']];
  let imported = 0, whole = 0, fromInput = 0, outputs = 0, agreeing = 0;
  for (const r of records) {
    const isWhole = r.imported && r.skipped === 0;
    const isFromInput = r.imported && !r.error && (r.fedFromRuntime || []).length === 0;
    imported += r.imported ? 1 : 0;
    whole += isWhole ? 1 : 0;
    fromInput += isFromInput ? 1 : 0;
    const finals = r.finals || [];
    outputs += finals.length;
    agreeing += finals.filter(f => f.computed && f.ok).length;
    rows.push([r.model, r.imported ? 'yes' : 'no', r.imported ? String(r.layers) : '-', r.imported ? String(r.skipped) : '-',
      isWhole ? 'yes' : 'no',
      isFromInput ? (r.computedByFloatReference ? `yes (${r.computedByFloatReference} by float ref.)` : 'yes') : 'no',
      r.floatCompared ? r.floatWorst.toExponential(1) : '-',
      inputText(r) + (r.error ? `(${r.error.slice(0, 120)})` : finals.map(finalText).join('; '))]);
  }
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  console.log(`\n${records.length} models: ${imported} import, ${whole} run whole (no node cut), ${fromInput} run ` +
    `from the real input alone (cut tensors computed by the float reference); of the ${outputs} ` +
    `final outputs of the models that ran, ${agreeing} are computed and agree with ONNX Runtime at cosine ≥ 0.99 ` +
    `(a cut tensor the float reference cannot compute fed ONNX Runtime's value; a model that cuts tensors no ONNX ` +
    `tensor names does not run)`);
}

main();
