import re, sys
src, nt, ipt, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
s = open(src).read()
# split into kernels
parts = re.split(r'(?=extern "C" __global__)', s)
out = [parts[0]]
for k in parts[1:]:
    k2 = re.sub(r'\bt\d+ \+ %d \* (i\d+)' % nt, lambda m: '%d * warp + lane + 32 * %s' % (32 * ipt, m.group(1)), k)
    # __syncthreads occurrences: 1 draw, 2 load, 3 wscan, 4 lookback, 5 pre-out, 6 post-out
    idx = [m.start() for m in re.finditer(r'__syncthreads\(\);', k2)]
    assert len(idx) == 6, len(idx)
    for j in (5, 4, 1):
        k2 = k2[:idx[j]] + '__syncwarp();   ' + k2[idx[j] + len('__syncthreads();'):]
    out.append(k2)
open(dst, 'w').write(''.join(out))
