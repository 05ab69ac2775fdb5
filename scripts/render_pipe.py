"""Draws the pipe study's porosity with ParaView, one or more snapshots side by side, from the
arrays that `scripts/pipe_study.py extract` wrote (porosity.npz): in 3-D the chimney's surface
(phi at the threshold) over a vertical slice through the pipe coloured by porosity; in 2-D the
porosity with the threshold's contour line.

Run with ParaView's Python under an X display (tests/outputs/with_xvfb.sh):
  pvpython scripts/render_pipe.py porosity.npz OUT.png [--steps 40 120 200] [--threshold 0.04]
"""
import argparse

import numpy as np
from paraview import simple as pv
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonDataModel import vtkImageData


def image(phi, spacing):
    """A vtkImageData of point values phi (array axes z, y, x: x varies fastest, as VTK's)."""
    img = vtkImageData()
    nz, ny, nx = phi.shape
    img.SetDimensions(nx, ny, nz)
    img.SetSpacing(*[float(s) for s in spacing])
    a = numpy_support.numpy_to_vtk(np.ascontiguousarray(phi, dtype=np.float32).ravel(), deep=1)
    a.SetName("phi")
    img.GetPointData().SetScalars(a)
    return img


def panel(view, phi, spacing, threshold, vmax, shift, time):
    """One snapshot, moved by `shift` along x: the slice through the pipe's centre coloured by
    porosity (in 2-D the plane itself), the surface (line) phi = threshold, the domain's outline
    and the time above it."""
    flat = phi.ndim == 2
    if flat:  # (y, x): one layer of points, y up; the camera looks along y in 3-D, so turn it
        phi = phi[:, None, :]
        spacing = [spacing[0], 1.0, spacing[1]]
    source = pv.TrivialProducer()
    source.GetClientSideObject().SetOutput(image(phi, spacing))
    moved = pv.Transform(Input=source)
    moved.Transform.Translate = [shift, 0, 0]
    lut = pv.GetColorTransferFunction("phi")
    lut.ApplyPreset("Viridis (matplotlib)", True)
    lut.RescaleTransferFunction(float(phi.min()), vmax)
    size = [(n - 1) * s for n, s in zip(phi.shape[::-1], spacing)]
    cut = moved
    if not flat:
        cut = pv.Slice(Input=moved)
        cut.SliceType.Origin = [shift + 0.5 * size[0], 0.5 * size[1], 0.5 * size[2]]
        cut.SliceType.Normal = [0, 1, 0]
    d = pv.Show(cut, view)
    pv.ColorBy(d, ("POINTS", "phi"))
    d.LookupTable = lut
    surface = pv.Show(pv.Contour(Input=moved, ContourBy=["POINTS", "phi"],
                                 Isosurfaces=[threshold]), view)
    pv.ColorBy(surface, None)
    surface.AmbientColor = surface.DiffuseColor = [0.95, 0.45, 0.2]
    surface.Opacity = 1.0 if flat else 0.5
    surface.LineWidth = 2
    pv.Show(pv.Outline(Input=moved), view).DiffuseColor = [0.3, 0.3, 0.3]
    label = pv.Show(pv.a3DText(Text="t = %.3g" % time), view)
    label.Scale = [1.2, 1.2, 1.2]
    label.Position = [shift, 0.5 * size[1], size[2] + 0.5]
    label.Orientation = [90, 0, 0]  # upright, facing the camera (the text lies in x-y)
    label.DiffuseColor = [0, 0, 0]
    return d, size


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("npz")
    p.add_argument("out")
    p.add_argument("--steps", nargs="+", type=int)
    p.add_argument("--threshold", type=float, default=0.04)
    args = p.parse_args()
    data = np.load(args.npz)
    steps = args.steps or sorted(int(k[4:]) for k in data.files if k.startswith("phi_"))
    spacing = data["spacing"]
    vmax = max(float(data["phi_%06d" % s].max()) for s in steps)
    view = pv.CreateView("RenderView")
    view.OrientationAxesVisibility = 0
    view.Background = [1, 1, 1]
    try:
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    shift = 0.0
    for step in steps:
        d, size = panel(view, data["phi_%06d" % step].astype(np.float32), spacing,
                        args.threshold, vmax, shift, float(data["time_%06d" % step]))
        shift += 1.35 * size[0]
    d.SetScalarBarVisibility(view, True)
    bar = pv.GetScalarBar(pv.GetColorTransferFunction("phi"), view)
    bar.Title = "porosity"
    bar.TitleColor = bar.LabelColor = [0, 0, 0]
    bar.WindowLocation = "Any Location"
    bar.Position = [0.80, 0.15]
    bar.ScalarBarThickness = 8
    bar.ScalarBarLength = 0.6
    bar.TitleFontSize = bar.LabelFontSize = 10
    bar.RangeLabelFormat = "%-#6.3g"
    view.CameraPosition = [0.4 * shift, -3.0 * shift, 1.2 * size[2]]
    view.CameraFocalPoint = [0.5 * shift, 0.5 * size[1], 0.5 * size[2]]
    view.CameraViewUp = [0, 0, 1]
    view.ResetCamera()
    view.CameraParallelProjection = 0
    pv.GetActiveCamera().Zoom(1.25)
    pv.SaveScreenshot(args.out, view, ImageResolution=[330 * len(steps) + 260, 620])
    print("wrote", args.out)


if __name__ == "__main__":
    main()
