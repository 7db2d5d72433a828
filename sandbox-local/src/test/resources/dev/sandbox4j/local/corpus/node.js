const cp = require('child_process'), { Worker } = require('worker_threads'), fs = require('fs');
fs.writeFileSync('n.txt', 'hello');
const w = new Worker('require("worker_threads").parentPort.postMessage(6*7)', { eval: true });
w.on('message', m => {
  const out = cp.execFileSync('sh', ['-c', 'echo child']).toString().trim();
  const watcher = fs.watch('.', () => {});
  fs.readFile('n.txt', 'utf8', (e, d) => {
    fs.promises.readFile('n.txt', 'utf8').then(d2 => { watcher.close(); console.log('node ok', m, out, d, d2); });
  });
});
