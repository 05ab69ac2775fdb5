#!/usr/bin/python3
"""Solitary porosity wave: snapshots of a 1-D hydromech run against the exact profile.

Usage: scripts/plot_solitary_wave.py OUTPUT_DIR OUT.png [AMPLITUDE] [START]
(scaled units, n = 3, m = 0: the wave of amplitude A started at START travels at c = 2A + 1;
see docs/models/hydromech.md). Needs matplotlib and xarray.
"""
import glob, sys, math
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt, numpy as np, xarray as xr
A = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
z0 = float(sys.argv[4]) if len(sys.argv) > 4 else 15.0
c = 2 * A + 1
a = math.sqrt(A - 1)
def dist(s): return math.sqrt(c/2)*(2*s+math.log((a+s)/(a-s))/a)
def f(z):
    d=abs(z); lo,hi=0.0,a
    for _ in range(200):
        m=0.5*(lo+hi)
        if dist(m)<d: lo=m
        else: hi=m
    s=0.5*(lo+hi); return A-s*s
fig,ax=plt.subplots(figsize=(7,3.2))
for p in sorted(glob.glob(sys.argv[1]+"/*.nc")):
    ds=xr.open_dataset(p); t=float(ds.time[0]); x=ds.x.values; phi=ds.phi.isel(time=0).values
    ax.plot(x,phi,lw=1.5,label=f"staghorn t = {t:g}")
    ax.plot(x,[f(xx-z0-c*t) for xx in x],'k--',lw=0.8)
ax.plot([],[],'k--',lw=0.8,label=f"exact, c = 2A + 1 = {c:g}")
ax.set_xlabel("z (compaction lengths)"); ax.set_ylabel("phi / phi0")
ax.set_title(f"1-D solitary wave, A = {A:g}", fontsize=9)
ax.legend(fontsize=7); fig.tight_layout(); fig.savefig(sys.argv[2],dpi=80)
