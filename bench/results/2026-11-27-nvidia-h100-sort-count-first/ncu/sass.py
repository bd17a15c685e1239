import csv, sys, collections
def kernels(path):
    rows = list(csv.reader(open(path, newline='')))
    out = []; cur = None
    for r in rows:
        if r and r[0] == 'Kernel Name':
            cur = {'name': r[1], 'rows': []}; out.append(cur); hdr = None; continue
        if r and r[0] == 'Address': cur['hdr'] = r; continue
        if cur is not None and r: cur['rows'].append(r)
    return out
def num(x):
    try: return float(x.replace(',', ''))
    except: return 0.0
path, which = sys.argv[1], int(sys.argv[2])
ks = kernels(path); k = ks[which]; h = k['hdr']; ix = {n: i for i, n in enumerate(h)}
rows = k['rows']
print(k['name'][:80], len(rows), 'instructions')
stalls = [n for n in h if n.startswith('stall_') and 'Not Issued' not in n]
tot = collections.Counter()
for r in rows:
    for s in stalls: tot[s] += num(r[ix[s]])
T = sum(num(r[ix['Warp Stall Sampling (All Samples)']]) for r in rows)
print('samples', T, ' '.join('%s:%.1f%%' % (s[6:], 100 * v / T) for s, v in tot.most_common(10)))
agg = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
for r in rows:
    op = r[ix['Source']].split()[0] if r[ix['Source']] else ''
    if op.startswith('@'): op = r[ix['Source']].split()[1]
    op = op.split('.')[0]
    a = agg[op]; a[0] += num(r[ix['Instructions Executed']]); a[1] += num(r[ix['L1 Wavefronts Shared']]); a[2] += num(r[ix['L2 Theoretical Sectors Global']]); a[3] += num(r[ix['Warp Stall Sampling (All Samples)']]); a[4] += num(r[ix['L1 Wavefronts Shared Ideal']])
print('%-10s %12s %12s %12s %12s %8s' % ('op', 'executed', 'smem_wf', 'smem_ideal', 'l2_sectors', 'samples%'))
for op, a in sorted(agg.items(), key=lambda kv: -kv[1][3])[:25]:
    print('%-10s %12d %12d %12d %12d %8.1f' % (op, a[0], a[1], a[4], a[2], 100 * a[3] / T))
if len(sys.argv) > 3:
    thr = float(sys.argv[3])
    for i, r in enumerate(rows):
        s = num(r[ix['Warp Stall Sampling (All Samples)']])
        ex = num(r[ix['Instructions Executed']])
        wf = num(r[ix['L1 Wavefronts Shared']]); l2 = num(r[ix['L2 Theoretical Sectors Global']])
        top = sorted(((num(r[ix[st]]), st[6:]) for st in stalls), reverse=True)[:3]
        if s >= thr * T / 100 or (len(sys.argv) > 4 and (wf or l2)):
            print('%5d %6.2f%% %9d wf=%-9d l2=%-9d %-60s %s' % (i, 100 * s / T, ex, wf, l2, r[ix['Source']][:60], ' '.join('%s:%d' % (b, a) for a, b in top if a)))
