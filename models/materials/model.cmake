# The materials module shared by the stokes and hydromech models (not a model itself): phases
# placed by geometry or read from a NetCDF file, mixed over sub-cell samples, on the host.
list(APPEND STAGHORN_MODEL_SOURCES materials/options.cpp materials/shapes.cpp
     materials/random_inclusions.cpp materials/material_file.cpp materials/materials.cpp)
