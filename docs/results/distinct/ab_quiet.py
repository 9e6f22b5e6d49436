# Medians over rounds of distopo/MPICH (same run) for the quiet rows:
#   python3 ab_quiet.py quiet_*.jsonl
# Each row has "build": base (main, 314c26e) or new (this branch), and "round".
import sys,json,statistics as st
rows=[json.loads(l) for f in sys.argv[1:] for l in open(f) if l.startswith('{')]
d={}
for r in rows: d.setdefault((r['P'],r['family'],r['edges_per_rank'],r.get('weights','repeated'),r['build'],r['round']),{})[r['impl']]=r
keys=sorted(set(k[:4] for k in d))
for k in keys:
  out=[]
  for b in ['base','new']:
    rat=[v['distopo']['time_s']/v['mpich']['time_s'] for kk,v in d.items() if kk[:4]==k and kk[4]==b and 'distopo' in v and 'mpich' in v]
    t=[v['distopo']['time_s']*1e3 for kk,v in d.items() if kk[:4]==k and kk[4]==b and 'distopo' in v]
    m=[v['mpich']['time_s']*1e3 for kk,v in d.items() if kk[:4]==k and kk[4]==b and 'mpich' in v]
    h=[v['distopo']['peak_bytes_per_rank']/2**20 for kk,v in d.items() if kk[:4]==k and kk[4]==b and 'distopo' in v]
    hm=[v['mpich']['peak_bytes_per_rank']/2**20 for kk,v in d.items() if kk[:4]==k and kk[4]==b and 'mpich' in v]
    if rat: out.append('%s %.2f (%.1f/%.1f ms, %.1f/%.1f MiB)'%(b,st.median(rat),st.median(t),st.median(m),max(h),max(hm)))
  print('P=%d %-13s %8d %-8s '%k + ' | '.join(out))
