# sandbox4j code-context driver (Python). Sent by the host in argv, never stored in the sandbox.
# Frames in (fd 0, moved away from the user's code): "<length> <timeout_ms>\n" then <length> bytes of UTF-8 code.
# At timeout_ms the run is interrupted (KeyboardInterrupt) and the context kept; the host restarts it if that fails.
# Frames out (fd 3, not inherited by children): one ASCII line each, "<KIND> <base64>\n":
#   READY pid | O stdout chunk | E stderr chunk | T value text | P png | R status (completed|error|interrupted)
def _sandbox4j_driver():
    import os, sys, ast, base64, io, signal, threading, traceback, types
    os.environ.setdefault('MPLBACKEND', 'Agg')
    ctl = 3
    os.set_inheritable(ctl, False)
    cin = os.dup(0)
    nul = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nul, 0)
    os.close(nul)
    sys.stdin = open(os.devnull)
    lock = threading.RLock()
    state = {'running': False, 'sending': 0, 'pending': False}

    def on_int(signum, frame):
        if state['running']:
            if state['sending']:
                state['pending'] = True
            else:
                raise KeyboardInterrupt
    signal.signal(signal.SIGINT, on_int)

    def send(kind, data):
        line = kind + b' ' + base64.b64encode(data) + b'\n'
        with lock:
            state['sending'] += 1
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(ctl, view):]
            finally:
                state['sending'] -= 1
        if state['pending'] and state['running'] and not state['sending']:
            state['pending'] = False
            raise KeyboardInterrupt

    class Out(io.TextIOBase):
        encoding = 'utf-8'
        errors = 'replace'

        def __init__(self, kind):
            self.kind = kind

        def writable(self):
            return True

        def isatty(self):
            return False

        def write(self, s):
            if not isinstance(s, str):
                raise TypeError('write() argument must be str, not ' + type(s).__name__)
            b = s.encode('utf-8', 'replace')
            for i in range(0, len(b), 49152):
                send(self.kind, b[i:i + 49152])
            return len(s)

    def read_exactly(n):
        chunks = []
        while n > 0:
            c = os.read(cin, min(n, 1 << 20))
            if not c:
                os._exit(0)
            chunks.append(c)
            n -= len(c)
        return b''.join(chunks)

    def read_header():
        b = bytearray()
        while True:
            c = os.read(cin, 1)
            if not c:
                os._exit(0)
            if c == b'\n':
                return bytes(b)
            b += c
            if len(b) > 64:
                os._exit(2)

    main = types.ModuleType('__main__')
    main.__dict__['__builtins__'] = __builtins__
    sys.modules['__main__'] = main
    g = main.__dict__
    real_out, real_err = sys.stdout, sys.stderr
    main_thread = threading.main_thread().ident

    def interrupt():
        # the run's own timeout: SIGINT to the main thread wakes a blocking call too (time.sleep, a read)
        if state['running']:
            signal.pthread_kill(main_thread, signal.SIGINT)
    send(b'READY', str(os.getpid()).encode())
    while True:
        header = read_header().split()
        n = int(header[0])
        timeout_ms = int(header[1]) if len(header) > 1 else 0
        code = read_exactly(n).decode('utf-8', 'replace')
        status = b'completed'
        sys.stdout, sys.stderr = Out(b'O'), Out(b'E')
        try:
            try:
                tree = ast.parse(code, '<context>', 'exec')
                last = None
                if tree.body and isinstance(tree.body[-1], ast.Expr):
                    last = ast.Expression(tree.body.pop().value)
                body = compile(tree, '<context>', 'exec')
                expr = compile(last, '<context>', 'eval') if last is not None else None
                value = None
                timer = threading.Timer(timeout_ms / 1000.0, interrupt) if timeout_ms > 0 else None
                state['running'] = True
                if timer is not None:
                    timer.daemon = True
                    timer.start()
                try:
                    exec(body, g)
                    if expr is not None:
                        value = eval(expr, g)
                finally:
                    state['running'] = False
                    state['pending'] = False
                    if timer is not None:
                        timer.cancel()
                if value is not None:
                    send(b'T', repr(value)[:1000000].encode('utf-8', 'replace'))
            except KeyboardInterrupt:
                status = b'interrupted'
                sys.stderr.write('KeyboardInterrupt\n')
            except BaseException as e:
                status = b'error'
                if isinstance(e, SyntaxError):
                    lines = traceback.format_exception_only(type(e), e)
                else:
                    lines = traceback.format_exception(type(e), e, e.__traceback__.tb_next)
                sys.stderr.write(''.join(lines))
            plt = sys.modules.get('matplotlib.pyplot')
            if plt is not None:
                try:
                    nums = plt.get_fignums()
                    if nums:
                        buf = io.BytesIO()
                        plt.figure(nums[-1]).savefig(buf, format='png')
                        plt.close('all')
                        if buf.tell() <= (4 << 20):
                            send(b'P', buf.getvalue())
                        else:
                            sys.stderr.write('sandbox4j: the figure is over 4 MiB as PNG; not returned\n')
                except Exception as e:
                    sys.stderr.write('sandbox4j: cannot render the figure: %s\n' % e)
        except KeyboardInterrupt:
            status = b'interrupted'
        finally:
            sys.stdout, sys.stderr = real_out, real_err
        send(b'R', status)


_sandbox4j_driver()
