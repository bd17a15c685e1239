import re, sys
old = open("old_exclSumI32.cu").read(); new = open("cur_excl.cu").read()
def block(text, start_pat):
    i = text.index(start_pat)
    j = text.index("{", i)
    d = 0
    for k in range(j, len(text)):
        if text[k] == "{": d += 1
        elif text[k] == "}":
            d -= 1
            if d == 0: return i, k + 1
    raise Exception
def old_compute():
    i = old.index("    /* compute warp patc_w")
    j = old.rindex("}")  # kernel's closing brace
    return "    if (patc_w < 16) {\n" + old[i:j] + "    }\n"
alias = '''
    /* aliases: the old template's names for the new kernel's pointers */
    int *const patc_ring = ring0;
    unsigned long long *const patc_full = full1, *const patc_empty = empty2, *const patc_tots = tots3, *const patc_aggb = aggb4, *const patc_pref = pref5;
    long long *const patc_tid = tid6; unsigned int *const patc_ep = ep7;
    int *const patc_agg = agg8, *const patc_wtot = wtot9, *const patc_woff = woff10, *const patc_off = off11;
    const int patc_w = warp, patc_l = lane; const long long patc_n = (long long)(n); const long long patc_tiles = (patc_n + 6143) / 6144;
    const int patc_init = 0; auto patc_op = [&](const int pa3, const int pb4) -> int { return (pa3 + pb4); };
    unsigned long long *const pipestate1 = pipestate12, *const pipectr2 = pipectr13;
'''
roles = {"prod": ("    if ((warp == 18))", "    if (patc_w == 18)"), "agg": ("    if ((warp == 16))", "    if (patc_w == 16)"),
         "lb": ("    if ((warp == 17))", "    if (patc_w == 17)"), "cmp": ("    if ((warp < 16))", None)}
for name, (np, op) in roles.items():
    t = new
    a, b = block(t, np)
    if op: oa, ob = block(old, op); repl = old[oa:ob]
    else: repl = old_compute()
    t = t[:a] + repl + t[b:]
    k = t.index("    const int warp = threadIdx.x >> 5;\n") + len("    const int warp = threadIdx.x >> 5;\n")
    t = t[:k] + alias + t[k:]
    open("hx/%s.cu" % name, "w").write(t)
    print(name, len(t))
