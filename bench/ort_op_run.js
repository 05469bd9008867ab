// Times one small model in ONNX Runtime (onnxruntime-node) by ORT's own profiler, for op_bench.py.
// Usage: node ort_op_run.js JOB.json   with the job of DATA/realworld/ort_run.js ({model, threads,
// level, inputs: [{name, dtype, dims, file}], repeat}) plus `profile`: a file prefix.
// Why not ort_run.js's wall time: for one op, the node binding's conversion of inputs and outputs
// (a copy into JavaScript buffers per output, about 1-5 ms per MB here) is larger than the op itself,
// and onnxforge's bench_run has no such cost. ORT's "model_run" profile event is the run inside the
// native session (graph execution and output allocation), which is what bench_run times.
// Prints {run_ms: [...wall...], model_run_ms: [...profiled...]}; the first run is the warm-up.
const fs = require('fs');
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');
const T = {float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array,
           int8: Int8Array, uint8: Uint8Array, bool: Uint8Array, float16: Uint16Array};
(async () => {
  const job = JSON.parse(fs.readFileSync(process.argv[2]));
  const so = {graphOptimizationLevel: job.level || 'all', intraOpNumThreads: job.threads || 1,
              interOpNumThreads: 1, executionProviders: ['cpu'], logSeverityLevel: 3,
              enableProfiling: true, profileFilePrefix: job.profile};
  const s = await ort.InferenceSession.create(job.model, so);
  const feeds = {};
  for (const i of job.inputs) {
    const buf = fs.readFileSync(i.file);
    const arr = new T[i.dtype](buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    feeds[i.name] = new ort.Tensor(i.dtype, arr, i.dims);
  }
  const res = {run_ms: [], model_run_ms: []};
  for (let k = 0; k < (job.repeat || 1); k++) {
    const t1 = process.hrtime.bigint();
    await s.run(feeds);
    res.run_ms.push(Number(process.hrtime.bigint() - t1) / 1e6);
  }
  s.endProfiling();
  // The profile is written next to the prefix as PREFIX_DATE.json: a list of trace events (dur in us).
  const dir = require('path').dirname(job.profile), base = require('path').basename(job.profile);
  for (const f of fs.readdirSync(dir).filter(f => f.startsWith(base) && f.endsWith('.json'))) {
    for (const e of JSON.parse(fs.readFileSync(require('path').join(dir, f)))) {
      if (e.cat === 'Session' && e.name === 'model_run') res.model_run_ms.push(e.dur / 1000);
    }
    fs.unlinkSync(require('path').join(dir, f));
  }
  console.log(JSON.stringify(res));
})().catch(e => { console.error(String(e)); process.exit(1); });
