list(APPEND STAGHORN_MODEL_SOURCES hydromech/hydromech.cpp hydromech/boundary.cpp
     hydromech/initial.cpp hydromech/options.cpp hydromech/config.cpp hydromech/coupled.cpp hydromech/coupled_acceleration.cpp hydromech/coupled_two_phase.cpp
     hydromech/coupled_initial.cpp hydromech/coupled_options.cpp hydromech/coupled_sources.cpp
     hydromech/porosity_stats.cpp hydromech/initial_shape.cpp
     hydromech/background_porosity.cpp hydromech/rows.cpp)
list(APPEND STAGHORN_MODEL_KERNELS hydromech/hydromech.cpp hydromech/boundary.cpp
     hydromech/coupled.cpp hydromech/coupled_acceleration.cpp hydromech/coupled_two_phase.cpp hydromech/porosity_stats.cpp)
# The reduced model's pairs kernel (n = 3) holds 1024 threads per SM at 64 registers and spills a
# few bytes there, mostly on the rows next to y and z sides (docs/kernels.md).
list(APPEND STAGHORN_KERNELS_MAY_SPILL hydromech/hydromech.cpp)
