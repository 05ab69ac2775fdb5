list(APPEND STAGHORN_MODEL_SOURCES stokes/stokes.cpp stokes/initial.cpp stokes/options.cpp
     stokes/stiff_bodies/rigid_body.cpp stokes/stiff_bodies/rigid_terms.cpp
     stokes/stiff_bodies/body_labels.cpp stokes/stiff_bodies/rigid_bodies.cpp
     stokes/stiff_bodies/wall_ghosts.cpp
     stokes/power_law.cpp stokes/march.cpp)
list(APPEND STAGHORN_MODEL_KERNELS stokes/stokes.cpp stokes/stiff_bodies/rigid_body.cpp
     stokes/stiff_bodies/body_labels.cpp stokes/stiff_bodies/rigid_bodies.cpp stokes/power_law.cpp)
