# Table of before/after rows: python3 ab_table.py FILE.jsonl... (rows of distgraph_scaling with "build" base|new).
import json, sys, collections
rows=[json.loads(l) for f in sys.argv[1:] for l in open(f)]
d=collections.defaultdict(dict)
for r in rows:
    d[(r['P'], r['edges_per_rank'], r['family'])][(r['build'], r['impl'])]=r
print("| P | edges/rank | family | before distopo/MPICH | after distopo/MPICH | after ms (MPICH ms) | heap MiB before / after / MPICH | load |")
print("|---:|---:|---|---:|---:|---|---|---|")
for k in sorted(d):
    v=d[k]
    def ratio(b):
        if (b,'distopo') in v and (b,'mpich') in v: return v[(b,'distopo')]['max_time_s']/v[(b,'mpich')]['max_time_s']
    def heap(b,i): 
        r=v.get((b,i)); return '%.2f'%(r['peak_bytes_per_rank']/2**20) if r and r['peak_bytes_per_rank'] is not None else '-'
    rb, ra = ratio('base'), ratio('new')
    a=v.get(('new','distopo')); m=v.get(('new','mpich'))
    print(f"| {k[0]} | {k[1]} | {k[2]} | {rb:.2f} | {ra:.2f} | {a['max_time_s']*1e3:.2f} ({m['max_time_s']*1e3:.2f}) | {heap('base','distopo')} / {heap('new','distopo')} / {heap('new','mpich')} | {v[('new','distopo')]['load']} |" if rb and ra else f"| {k} | incomplete |")
