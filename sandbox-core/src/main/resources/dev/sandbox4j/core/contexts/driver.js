// sandbox4j code-context driver (JavaScript). Sent by the host in argv, never stored in the sandbox.
// Frames in (stdin): "<length> <timeout_ms>\n" then <length> bytes of UTF-8 code.
// Frames out (fd 3): one ASCII line each, "<KIND> <base64>\n":
//   READY pid | O stdout chunk | E stderr chunk | T value text | R status (completed|error|interrupted)
(() => {
  const fs = require('fs'), vm = require('vm'), util = require('util'), Module = require('module');
  const send = (kind, data) => {
    const b = Buffer.isBuffer(data) ? data : Buffer.from(String(data), 'utf8');
    for (let i = 0; i === 0 || i < b.length; i += 49152) {
      const line = Buffer.from(kind + ' ' + b.subarray(i, i + 49152).toString('base64') + '\n', 'latin1');
      let off = 0;
      while (off < line.length) {
        try { off += fs.writeSync(3, line, off); } catch (e) { if (e.code !== 'EAGAIN') throw e; }
      }
    }
  };
  const sink = (kind) => ({
    write(s, enc, cb) { send(kind, s); if (typeof enc === 'function') enc(); else if (typeof cb === 'function') cb(); return true; },
  });
  const out = sink('O'), err = sink('E');
  process.stdout.write = out.write;
  process.stderr.write = err.write;
  const con = new console.Console({ stdout: out, stderr: err, ignoreErrors: false, colorMode: false });
  const file = '/workspace/[context].js';
  const ctx = vm.createContext({
    console: con, require: Module.createRequire(file), process, Buffer, URL, URLSearchParams,
    TextEncoder, TextDecoder, setTimeout, clearTimeout, setInterval, clearInterval, setImmediate,
    clearImmediate, queueMicrotask, module: { exports: {} }, __filename: file, __dirname: '/workspace',
  });
  process.on('SIGINT', () => {});
  process.on('uncaughtException', (e) => send('E', (e && e.stack ? e.stack : String(e)) + '\n'));
  process.on('unhandledRejection', (e) => send('E', 'Unhandled rejection: ' + (e && e.stack ? e.stack : String(e)) + '\n'));
  const TIMED_OUT = {};
  const stack = (e) => e && e.stack
    ? e.stack.split('\n').filter((l) => !/^\s+at .*(node:|\[eval\])/.test(l)).join('\n') : String(e);
  async function runOne(code, timeout) {
    let status = 'completed';
    try {
      let value = vm.runInContext(code, ctx, { filename: '[context]', timeout: timeout > 0 ? timeout : undefined, breakOnSigint: true });
      if (value && typeof value.then === 'function') {
        let timer;
        value = await Promise.race([value, new Promise((_, reject) => {
          if (timeout > 0) timer = setTimeout(() => reject(TIMED_OUT), timeout);
        })]).finally(() => clearTimeout(timer));
      }
      if (value !== undefined) send('T', util.inspect(value).slice(0, 1000000));
    } catch (e) {
      if (e === TIMED_OUT || (e && (e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT' || e.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED'))) {
        status = 'interrupted';
        send('E', (e === TIMED_OUT ? 'the promise did not settle in time' : e.message) + '\n');
      } else {
        status = 'error';
        send('E', stack(e) + '\n');
      }
    }
    send('R', status);
  }
  let buf = Buffer.alloc(0), busy = false;
  async function pump() {
    if (busy) return;
    busy = true;
    try {
      for (;;) {
        const nl = buf.indexOf(10);
        if (nl < 0) { if (buf.length > 64) process.exit(2); break; }
        const [n, t] = buf.subarray(0, nl).toString('latin1').split(' ').map(Number);
        if (!(n >= 0)) process.exit(2);
        if (buf.length < nl + 1 + n) break;
        const code = buf.subarray(nl + 1, nl + 1 + n).toString('utf8');
        buf = buf.subarray(nl + 1 + n);
        await runOne(code, t);
      }
    } finally {
      busy = false;
    }
  }
  process.stdin.on('data', (d) => { buf = Buffer.concat([buf, d]); pump(); });
  process.stdin.on('end', () => process.exit(0));
  send('READY', String(process.pid));
})();
