# The staggered-Stokes module shared by the stokes and hydromech models (not a model itself):
# fields, walls and kernels of velocity, pressure and stress on the staggered grid.
list(APPEND STAGHORN_MODEL_SOURCES staggered_stokes/fields.cpp staggered_stokes/params.cpp
     staggered_stokes/walls.cpp staggered_stokes/power_law_keys.cpp
     staggered_stokes/damping.cpp)
