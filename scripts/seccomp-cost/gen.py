#!/usr/bin/env python3
"""Writes profiles.c: one builder per OCI seccomp profile (JSON), making the libseccomp calls runc makes for it
(seccomp_init with the default action, the listed architectures, one seccomp_rule_add per name and rule)."""
import json, sys

def action(x, key='action', errno_key='errnoRet'):
    if x[key] == 'SCMP_ACT_ALLOW':
        return 'SCMP_ACT_ALLOW'
    if x[key] == 'SCMP_ACT_ERRNO':
        return 'SCMP_ACT_ERRNO(%d)' % x.get(errno_key, 1)
    raise SystemExit('unsupported action ' + x[key])

def arches(d):
    if 'architectures' in d:
        return d['architectures']
    for m in d.get('archMap') or []:  # Docker's form: the x86_64 host's family
        if m['architecture'] == 'SCMP_ARCH_X86_64':
            return [m['architecture']] + m['subArchitectures']
    return []

out = ['#include <seccomp.h>', '#include <stddef.h>']
labels = []
for i, arg in enumerate(sys.argv[1:]):
    label, path = arg.split('=', 1)
    labels.append(label)
    d = json.load(open(path))
    out.append('static scmp_filter_ctx build_%d(void) {' % i)
    out.append(' scmp_filter_ctx c = seccomp_init(%s); int nr;'
               % action(d, 'defaultAction', 'defaultErrnoRet'))
    for a in arches(d):
        if a != 'SCMP_ARCH_X86_64':
            out.append(' seccomp_arch_add(c, %s);' % a)
    for x in d['syscalls']:
        conds = ''.join(', SCMP_CMP64(%d, %s, %dULL, %dULL)' % (g['index'], g['op'], g['value'], g.get('valueTwo', 0))
                        for g in x.get('args') or [])
        for n in x['names']:
            out.append(' nr = seccomp_syscall_resolve_name("%s"); if (nr != __NR_SCMP_ERROR) '
                       'seccomp_rule_add(c, %s, nr, %d%s);' % (n, action(x), len(x.get('args') or []), conds))
    out.append(' return c;\n}')
out.append('scmp_filter_ctx (*builders[])(void) = {%s};' % ', '.join('build_%d' % i for i in range(len(labels))))
out.append('const char *labels[] = {%s};' % ', '.join('"%s"' % l for l in labels))
out.append('int count = %d;' % len(labels))
open('profiles.c', 'w').write('\n'.join(out) + '\n')
