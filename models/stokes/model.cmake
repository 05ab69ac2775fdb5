list(APPEND STAGHORN_MODEL_SOURCES stokes/stokes.cpp stokes/initial.cpp stokes/options.cpp
     stokes/rigid_body.cpp stokes/rigid_terms.cpp stokes/body_labels.cpp stokes/rigid_bodies.cpp
     stokes/power_law.cpp stokes/march.cpp)
list(APPEND STAGHORN_MODEL_KERNELS stokes/stokes.cpp stokes/rigid_body.cpp stokes/body_labels.cpp
     stokes/rigid_bodies.cpp stokes/power_law.cpp)
