# sandbox4j browser driver: runs INSIDE the sandbox, starts headless Chromium with --remote-debugging-pipe
# (CDP over fds 3/4, no port anywhere) and answers the host one JSON line per request on stdout.
# argv: chromium-path, workspace, "eval"|"noeval", width, height, "loopback"|"proxy-loopback". Requests: {"id":n,"op":...}.
import base64, fcntl, json, os, sys, tempfile, threading, time

CHROMIUM, WORKSPACE, EVAL, WIDTH, HEIGHT = sys.argv[1], sys.argv[2], sys.argv[3] == "eval", int(sys.argv[4]), int(sys.argv[5])
PROXY_LOOPBACK = sys.argv[6] != "loopback"  # loopback through the proxy too (which refuses it), unless allowed
MAX_REFS, MAX_CONTENT, MAX_TREE, MAX_FULL = 200, 100_000, 60_000, 16_384
ROLES = {"button", "checkbox", "combobox", "link", "listbox", "menu", "menubar", "menuitem", "menuitemcheckbox",
         "menuitemradio", "option", "radio", "scrollbar", "searchbox", "slider", "spinbutton", "switch", "tab",
         "textbox", "treeitem"}
KEYS = {"Enter": (13, "\r"), "Tab": (9, None), "Escape": (27, None), "Backspace": (8, None), "Delete": (46, None),
        "ArrowUp": (38, None), "ArrowDown": (40, None), "ArrowLeft": (37, None), "ArrowRight": (39, None),
        "Home": (36, None), "End": (35, None), "PageUp": (33, None), "PageDown": (34, None), " ": (32, " "),
        "Space": (32, " ")}
OUT = sys.stdout


class Fail(Exception):
    def __init__(self, kind, msg):
        super().__init__(msg)
        self.kind = kind


class Cdp:
    def __init__(self, wfd, rfd):
        self.w, self.r, self.next, self.lock = wfd, rfd, 0, threading.Lock()
        self.waiting, self.cond, self.loads, self.docs, self.dead = {}, threading.Condition(), {}, {}, None
        self.navs, self.loading, self.crashed, self.targets = {}, {}, {}, {}
        self.requests, self.starts = {}, {}  # navigations asked for, and loads started, per session
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        buf = b""
        try:
            while True:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    break
                buf += chunk
                while b"\0" in buf:
                    msg, buf = buf.split(b"\0", 1)
                    self.dispatch(json.loads(msg))
        except Exception as e:
            self.dead = str(e)
        with self.cond:
            self.dead = self.dead or "chromium exited"
            self.cond.notify_all()

    def dispatch(self, m):
        with self.cond:
            if "id" in m:
                self.waiting[m["id"]] = m
            else:
                s, meth, p = m.get("sessionId"), m.get("method"), m.get("params", {})
                if meth == "Page.loadEventFired":
                    self.loads[s] = self.loads.get(s, 0) + 1
                elif meth == "Page.frameNavigated" and not p["frame"].get("parentId"):
                    self.navs[s] = self.navs.get(s, 0) + 1
                elif meth in ("Page.frameRequestedNavigation", "Page.frameScheduledNavigation"):
                    self.requests[s] = self.requests.get(s, 0) + 1
                elif meth == "Page.frameStartedLoading":
                    self.starts[s] = self.starts.get(s, 0) + 1
                    self.loading.setdefault(s, set()).add(p.get("frameId"))
                elif meth == "Page.frameStoppedLoading":
                    self.loading.setdefault(s, set()).discard(p.get("frameId"))
                elif meth == "Network.responseReceived" and p.get("type") == "Document":
                    r = p["response"]
                    self.docs[(s, p.get("loaderId"))] = (r.get("status"), r.get("headers", {}))
                elif meth == "Target.targetCrashed":  # the renderer died: out of memory, most often
                    self.crashed[p.get("targetId")] = "%s (code %s)" % (p.get("status"), p.get("errorCode"))
                elif meth == "Page.javascriptDialogOpening":
                    threading.Thread(target=lambda: self.call("Page.handleJavaScriptDialog", {"accept": False}, s),
                                     daemon=True).start()
            self.cond.notify_all()

    def call(self, method, params=None, session=None, timeout=30):
        self.check(session)
        with self.lock:
            self.next += 1
            i = self.next
            m = {"id": i, "method": method, "params": params or {}}
            if session:
                m["sessionId"] = session
            os.write(self.w, json.dumps(m).encode() + b"\0")
        end = time.time() + timeout
        with self.cond:
            while i not in self.waiting:
                if self.dead:
                    raise Fail("backend_unavailable", "the browser ended: " + self.dead)
                self.check(session)
                if not self.cond.wait(max(0, end - time.time())) and time.time() >= end:
                    raise Fail("timeout", method + " took over %ds" % timeout)
            r = self.waiting.pop(i)
        if "error" in r:
            raise Fail("io_error", method + ": " + r["error"].get("message", "failed"))
        return r.get("result", {})

    def check(self, session):
        why = self.crashed.get(self.targets.get(session)) if session else None
        if why:
                raise Fail("backend_unavailable", "the page crashed: %s; the sandbox's memory limit or the"
                           " renderer's own ended it. close_tab it, or open another tab" % why)

    def wait_load(self, session, seen, timeout):
        end = time.time() + timeout
        with self.cond:
            while self.loads.get(session, 0) <= seen and time.time() < end and not self.dead \
                    and self.targets.get(session) not in self.crashed:
                self.cond.wait(end - time.time())
            return self.loads.get(session, 0) > seen

    def until(self, session, pred, timeout):
        end = time.time() + timeout
        with self.cond:
            while not pred() and time.time() < end and not self.dead and self.targets.get(session) not in self.crashed:
                self.cond.wait(end - time.time())

    def after_input(self, session, before, timeout):
        """Waits for the load an input event started, if any: a navigation asked for or a load started within
        0.5 s (a form submit, a link), then that load to start (2 s) and end (timeout)."""
        reqs, starts = before
        self.until(session, lambda: self.requests.get(session, 0) > reqs or self.starts.get(session, 0) > starts, 0.5)
        if self.requests.get(session, 0) > reqs:
            self.until(session, lambda: self.starts.get(session, 0) > starts, 2)
        self.settle(session, timeout)

    def settle(self, session, timeout):
        end = time.time() + timeout
        with self.cond:
            while self.loading.get(session) and time.time() < end and not self.dead \
                    and self.targets.get(session) not in self.crashed:
                self.cond.wait(end - time.time())


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="sbx-chromium-")
        a_r, a_w = os.pipe()  # host -> chromium (its fd 3)
        b_r, b_w = os.pipe()  # chromium -> host (its fd 4)
        args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--metrics-recording-only", "--mute-audio",
                "--hide-scrollbars", "--disable-dev-shm-usage", "--remote-debugging-pipe",
                # back restores no frozen page: it loads again (through the proxy), with a load event to wait for
                "--disable-features=BackForwardCache",
                "--window-size=%d,%d" % (WIDTH, HEIGHT), "--user-data-dir=" + self.profile]
        proxy = os.environ.get("HTTP_PROXY") or os.environ.get("http_proxy")
        if proxy:  # every request through the sandbox's egress proxy, loopback included (the proxy refuses it)
            args += ["--proxy-server=" + proxy] + (["--proxy-bypass-list=<-loopback>"] if PROXY_LOOPBACK else [])
        args.append("about:blank")
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.setsid()
                hi_r, hi_w = fcntl.fcntl(a_r, fcntl.F_DUPFD, 100), fcntl.fcntl(b_w, fcntl.F_DUPFD, 100)
                os.dup2(hi_r, 3)
                os.dup2(hi_w, 4)
                nul = os.open("/dev/null", os.O_RDWR)
                log = os.open(os.path.join(self.profile, "stderr.log"), os.O_WRONLY | os.O_CREAT, 0o600)
                os.dup2(nul, 0)
                os.dup2(nul, 1)
                os.dup2(log, 2)
                os.closerange(5, 4096)
                env = dict(os.environ, HOME=self.profile)
                os.execve(CHROMIUM, args, env)
            finally:
                os._exit(127)
        os.close(a_r)
        os.close(b_w)
        self.cdp = Cdp(a_w, b_r)
        self.sessions, self.active, self.refs, self.ref_nav = {}, None, {}, None
        try:
            self.cdp.call("Target.setDiscoverTargets", {"discover": True}, timeout=30)
        except Fail as e:
            raise Fail("backend_unavailable", "chromium did not start (%s): %s" % (e, self.stderr_tail()))
        pages = [t for t in self.cdp.call("Target.getTargets")["targetInfos"] if t["type"] == "page"]
        self.active = pages[0]["targetId"] if pages else self.cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session(self.active)

    def stderr_tail(self):
        try:
            with open(os.path.join(self.profile, "stderr.log"), "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - 1500))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def session(self, target):
        s = self.sessions.get(target)
        if s is None:
            s = self.cdp.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.sessions[target] = s
            self.cdp.targets[s] = target
            for m in ("Page.enable", "Network.enable"):
                self.cdp.call(m, session=s)
            self.cdp.call("Emulation.setDeviceMetricsOverride",
                          {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}, s)
        return s

    def js(self, expr, timeout=30):
        r = self.cdp.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                          self.session(self.active), timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise Fail("invalid_argument", "script threw: " + str(d.get("exception", {}).get("description") or d.get("text")))
        return r.get("result", {}).get("value")

    def page(self, out):
        info = self.cdp.call("Target.getTargetInfo", {"targetId": self.active})["targetInfo"]
        out["title"], out["url"] = info.get("title", ""), info.get("url", "")
        return out

    def navigate(self, url, timeout):
        s = self.session(self.active)
        self.refs = {}
        seen = self.cdp.loads.get(s, 0)
        r = self.cdp.call("Page.navigate", {"url": url}, s, timeout)
        if r.get("errorText") == "net::ERR_TUNNEL_CONNECTION_FAILED":  # https: the proxy answered CONNECT with no 200
            raise Fail("io_error", "navigation to %s failed: the sandbox's egress proxy refused or could not open the"
                       " tunnel (a name off the allow-list, a denied address, or an unreachable host)" % url)
        if r.get("errorText"):
            raise Fail("io_error", "navigation to %s failed: %s" % (url, r["errorText"]))
        status = None
        if r.get("loaderId"):
            if not self.cdp.wait_load(s, seen, timeout):
                self.cdp.check(s)
                raise Fail("timeout", "%s did not finish loading within %ds" % (url, timeout))
            doc = self.cdp.docs.pop((s, r["loaderId"]), None)
            if doc:
                status = doc[0]
                egress = {k.lower(): v for k, v in doc[1].items()}.get("x-sandbox4j-egress")
                if egress:
                    raise Fail("permission_denied", "the sandbox's egress policy refused %s (%s)" % (url, egress))
        return self.page({"status": status})

    def back(self, timeout):
        """Goes one entry back in the active tab's history (as the browser's Back button); none: the page as is."""
        s = self.session(self.active)
        h = self.cdp.call("Page.getNavigationHistory", {}, s)
        if h["currentIndex"] <= 0:
            return self.page({"moved": False})
        entry = h["entries"][h["currentIndex"] - 1]
        self.refs = {}
        seen = self.cdp.loads.get(s, 0)
        self.cdp.call("Page.navigateToHistoryEntry", {"entryId": entry["id"]}, s, timeout)
        if not self.cdp.wait_load(s, seen, timeout):
            self.cdp.check(s)
            raise Fail("timeout", "going back to %s did not finish loading within %ds" % (entry["url"], timeout))
        return self.page({"moved": True})

    def wait_text(self, text, gone, timeout):
        """Waits until the page's visible text holds `text` (or, gone, no longer does); polled every 0.1 s."""
        probe = "(document.body ? document.body.innerText : '').includes(%s)" % json.dumps(text)
        end = time.time() + timeout
        while bool(self.js(probe, timeout)) == gone:
            if time.time() >= end:
                raise Fail("timeout", "the text %r did not %s within %ds" % (text[:100], "go" if gone else "appear",
                                                                              timeout))
            time.sleep(0.1)
        return self.page({})

    def open(self, url, timeout):
        t = self.cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.active, self.refs = t, {}
        self.session(t)
        return self.navigate(url, timeout) if url else self.page({})

    def tabs(self):
        out = []
        for t in self.cdp.call("Target.getTargets")["targetInfos"]:
            if t["type"] == "page":
                out.append({"target_id": t["targetId"], "title": t.get("title", ""), "url": t.get("url", ""),
                            "active": t["targetId"] == self.active})
        return {"tabs": out}

    def focus(self, target):
        if target not in [t["target_id"] for t in self.tabs()["tabs"]]:
            raise Fail("not_found", "no tab with target_id " + target)
        self.cdp.call("Target.activateTarget", {"targetId": target})
        self.active, self.refs = target, {}
        self.session(target)
        return self.page({})

    def close_tab(self, target):
        target = target or self.active
        ids = [t["target_id"] for t in self.tabs()["tabs"]]
        if target not in ids:
            raise Fail("not_found", "no tab with target_id " + target)
        self.cdp.call("Target.closeTarget", {"targetId": target})
        for _ in range(50):  # closeTarget answers before the target is gone from getTargets: a listing would show it
            if target not in [t["target_id"] for t in self.tabs()["tabs"]]:
                break
            time.sleep(0.1)
        self.sessions.pop(target, None)
        rest = [i for i in ids if i != target]
        if target == self.active:
            self.active = rest[-1] if rest else self.cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.refs = {}
            self.session(self.active)
        return self.page({})

    def snapshot(self):
        s = self.session(self.active)
        nodes = self.cdp.call("Accessibility.getFullAXTree", {}, s)["nodes"]
        by_id = {n["nodeId"]: n for n in nodes}
        self.refs, elements, lines, size = {}, [], [], 0
        self.ref_nav = (self.active, self.cdp.navs.get(s, 0))
        val = lambda n, k: str((n.get(k) or {}).get("value", "") or "")

        def walk(n, depth):
            nonlocal size
            role = val(n, "role")
            shown = not n.get("ignored") and role not in ("none", "generic", "InlineTextBox", "")
            if shown:
                name, ref = val(n, "name"), None
                if role.lower() in ROLES and len(self.refs) < MAX_REFS and n.get("backendDOMNodeId"):
                    ref = "e%d" % len(self.refs)
                    self.refs[ref] = n["backendDOMNodeId"]
                    elements.append({"ref_id": ref, "role": role, "name": name[:500],
                                     "description": val(n, "description")[:500], "value": val(n, "value")[:500]})
                if role != "StaticText" or not lines or name not in lines[-1]:
                    line = "  " * depth + "- " + role + (' "%s"' % name[:200] if name else "") + (" [ref=%s]" % ref if ref else "")
                    if size < MAX_TREE:
                        lines.append(line)
                        size += len(line) + 1
                depth += 1
            for c in n.get("childIds", []):
                if c in by_id:
                    walk(by_id[c], depth)

        if nodes:
            walk(nodes[0], 0)
        return self.page({"elements": elements, "tree": "\n".join(lines), "tree_truncated": size >= MAX_TREE})

    def node(self, ref):
        if self.refs and self.ref_nav != (self.active, self.cdp.navs.get(self.session(self.active), 0)):
            self.refs = {}  # the page navigated since the snapshot: its refs name nothing any more
        if ref not in self.refs:
            raise Fail("not_found", "element_ref %s is not in the last snapshot of this tab; take a snapshot" % ref)
        return self.refs[ref]

    def center(self, ref):
        s, b = self.session(self.active), self.node(ref)
        self.cdp.call("DOM.scrollIntoViewIfNeeded", {"backendNodeId": b}, s)
        q = self.cdp.call("DOM.getBoxModel", {"backendNodeId": b}, s)["model"]["content"]
        return sum(q[0::2]) / 4, sum(q[1::2]) / 4

    def key(self, key, s):
        code, text = KEYS.get(key, (ord(key.upper()) if len(key) == 1 else 0, key if len(key) == 1 else None))
        if code == 0 and key not in KEYS:
            raise Fail("invalid_argument", "unknown key '%s' (known: %s, or one character)" % (key, ", ".join(KEYS)))
        base = {"key": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
        self.cdp.call("Input.dispatchKeyEvent", dict(base, type="keyDown" if text else "rawKeyDown", **({"text": text} if text else {})), s)
        self.cdp.call("Input.dispatchKeyEvent", dict(base, type="keyUp"), s)

    def act(self, kind, ref, text, key, timeout):
        s = self.session(self.active)
        before = (self.cdp.requests.get(s, 0), self.cdp.starts.get(s, 0))
        if kind in ("click", "hover"):
            x, y = self.center(ref)
            self.cdp.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y}, s)
            if kind == "click":
                for t in ("mousePressed", "mouseReleased"):
                    self.cdp.call("Input.dispatchMouseEvent", {"type": t, "x": x, "y": y, "button": "left", "clickCount": 1}, s)
        elif kind == "type":
            b = self.node(ref)
            self.cdp.call("DOM.scrollIntoViewIfNeeded", {"backendNodeId": b}, s)
            self.cdp.call("DOM.focus", {"backendNodeId": b}, s)
            obj = self.cdp.call("DOM.resolveNode", {"backendNodeId": b}, s)["object"]["objectId"]
            self.cdp.call("Runtime.callFunctionOn", {"objectId": obj, "functionDeclaration":
                          "function(){if('value' in this&&typeof this.select==='function')this.select();"
                          "else{const r=document.createRange();r.selectNodeContents(this);"
                          "const s=getSelection();s.removeAllRanges();s.addRange(r);}}"}, s)
            self.cdp.call("Input.insertText", {"text": text}, s)
        elif kind == "press_key":
            if ref:
                self.cdp.call("DOM.focus", {"backendNodeId": self.node(ref)}, s)
            self.key(key, s)
        elif kind == "scroll_into_view":
            self.cdp.call("DOM.scrollIntoViewIfNeeded", {"backendNodeId": self.node(ref)}, s)
        elif kind == "focus":
            self.cdp.call("DOM.focus", {"backendNodeId": self.node(ref)}, s)
        else:
            raise Fail("invalid_argument", "unknown act_kind " + kind)
        if kind in ("click", "press_key"):  # what starts navigations (a submit, a link); the rest waits for none
            self.cdp.after_input(s, before, timeout)
        else:
            self.cdp.settle(s, timeout)
        self.cdp.check(s)
        return self.page({})

    def screenshot(self, full, ref, path):
        s = self.session(self.active)
        p = {"format": "png"}
        if ref:
            b = self.node(ref)
            self.cdp.call("DOM.scrollIntoViewIfNeeded", {"backendNodeId": b}, s)
            q = self.cdp.call("DOM.getBoxModel", {"backendNodeId": b}, s)["model"]["border"]
            m = self.cdp.call("Page.getLayoutMetrics", {}, s)["cssVisualViewport"]
            x, y = min(q[0::2]), min(q[1::2])
            p["clip"] = {"x": x + m["pageX"], "y": y + m["pageY"], "width": max(1, max(q[0::2]) - x),
                         "height": max(1, max(q[1::2]) - y), "scale": 1}
            p["captureBeyondViewport"] = True
        elif full:
            c = self.cdp.call("Page.getLayoutMetrics", {}, s)["cssContentSize"]
            w, h = int(c["width"]), int(c["height"])
            if h > MAX_FULL or w > MAX_FULL:
                raise Fail("too_large", "the page is %dx%d CSS pixels; a full-page screenshot is limited to %d" % (w, h, MAX_FULL))
            p["clip"] = {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}
            p["captureBeyondViewport"] = True
        data = base64.b64decode(self.cdp.call("Page.captureScreenshot", p, s, 60)["data"])
        full_path = os.path.join(WORKSPACE, path)
        os.makedirs(os.path.dirname(full_path), exist_ok=True)
        with open(full_path, "wb") as f:
            f.write(data)
        return self.page({"path": path, "bytes": len(data)})

    def content(self):
        html = self.js("document.documentElement ? document.documentElement.outerHTML : ''") or ""
        raw = html.encode("utf-8")
        out = raw[:MAX_CONTENT].decode("utf-8", "ignore")
        return self.page({"content": out, "total_bytes": len(raw), "truncated": len(raw) > MAX_CONTENT})

    def evaluate(self, script):
        if not EVAL:
            raise Fail("permission_denied", "evaluate is disabled (enable it in the browser options)")
        text = json.dumps(self.js(script))
        if len(text) > MAX_CONTENT:
            raise Fail("too_large", "the result is %d characters of JSON, more than %d" % (len(text), MAX_CONTENT))
        return self.page({"result": text})

    def handle(self, r):
        op, t = r.get("op"), min(max(int(r.get("timeout", 30)), 1), 300)
        if op == "navigate":
            return self.navigate(r["url"], t)
        if op == "wait_text":
            return self.wait_text(str(r["text"]), bool(r.get("gone")), t)
        if op == "back":
            return self.back(t)
        if op == "open":
            return self.open(r.get("url"), t)
        if op == "tabs":
            return self.tabs()
        if op == "focus":
            return self.focus(r["target_id"])
        if op == "close_tab":
            return self.close_tab(r.get("target_id"))
        if op == "snapshot":
            return self.snapshot()
        if op == "act":
            return self.act(r["kind"], r.get("ref"), r.get("text", ""), r.get("key", ""), t)
        if op == "screenshot":
            return self.screenshot(bool(r.get("full_page")), r.get("ref"), r["path"])
        if op == "content":
            return self.content()
        if op == "evaluate":
            return self.evaluate(r["script"])
        if op == "page":
            return self.page({})
        raise Fail("invalid_argument", "unknown op %r" % op)


def send(m):
    OUT.write(json.dumps(m) + "\n")
    OUT.flush()


def main():
    if not os.access(CHROMIUM, os.X_OK):
        send({"id": 0, "ok": False, "kind": "backend_unavailable", "error": "no Chromium at %s in the sandbox (install"
              " Debian's chromium there, use the browser image, or name another binary in the options)" % CHROMIUM})
        return
    try:
        b = Browser()
    except Fail as e:
        send({"id": 0, "ok": False, "kind": e.kind, "error": str(e)})
        return
    except OSError as e:
        send({"id": 0, "ok": False, "kind": "backend_unavailable", "error": "cannot start %s: %s" % (CHROMIUM, e)})
        return
    send({"id": 0, "ok": True, "pid": b.pid, "profile": b.profile, "version": b.cdp.call("Browser.getVersion").get("product", "")})
    try:
        for line in sys.stdin:
            r = json.loads(line)
            try:
                send(dict(b.handle(r), id=r.get("id"), ok=True))
            except Fail as e:
                send({"id": r.get("id"), "ok": False, "kind": e.kind, "error": str(e)})
            except (KeyError, ValueError, TypeError) as e:
                send({"id": r.get("id"), "ok": False, "kind": "invalid_argument", "error": "bad request: %r" % e})
            if b.cdp.dead:
                break
    finally:
        try:
            os.killpg(b.pid, 9)
        except OSError:
            pass


main()
