# The Debian package: `make package` (cpack -G DEB in the build folder) writes
# build/assay_<version>_<arch>.deb, installed with `apt-get install ./build/assay_*.deb`.
#
# One package holds everything `make install` installs, under /usr. Its Depends line is computed:
# dpkg-shlibdeps reads the ELF files (CLI, libraries, Python module) and names the Debian packages
# of the shared libraries they load (libfmt9, libxgboost0, libgmp10, ...); the Python interpreter
# range comes from the Python the module was built for. The only hand-written entries are the
# Python modules imported at run time, which no ELF file records: numpy (Depends), scikit-learn
# and pandas (Recommends: assay.learners and the DataFrame results need them).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME assay)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Who answers for the package: set it when publishing (the default address is a placeholder).
set(ASSAY_PACKAGE_MAINTAINER "assay maintainers <maintainers@assay.invalid>"
    CACHE STRING "Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${ASSAY_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "how good is my model, really? (model evaluation toolkit)")
set(CPACK_PACKAGE_DESCRIPTION
    "assay evaluates machine-learning models: classification metrics under every convention, "
    "Same/Other/All cross-validation (SOAK), five learners as scikit-learn estimators, "
    "robustness under distribution shift, exact counts over a model's whole input space, and "
    "offline HTML reports. Command line, C++20 libraries (CMake and pkg-config) and a Python "
    "package.")
list(JOIN CPACK_PACKAGE_DESCRIPTION "" CPACK_PACKAGE_DESCRIPTION)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The package's own libraries: dpkg-shlibdeps finds them through the $ORIGIN RPATHs, and the
# generated shlibs file lets other packages depend on them.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
# The compiled module is built for one Python version (python3 X.Y, >= X.Y and << X.Y+1).
math(EXPR assay_python_next "${Python3_VERSION_MINOR} + 1")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${assay_python_next}), python3-numpy")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-sklearn, python3-pandas")
# Building C++ programs against the headers needs these (the public headers include them).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "g++ (>= 4:12), cmake, pkg-config, libfmt-dev, nlohmann-json3-dev, libgmp-dev, libboost-dev")
# prerm removes the byte code Python wrote next to the modules, so a purge leaves nothing behind.
configure_file(${PROJECT_SOURCE_DIR}/cmake/install/prerm.in ${PROJECT_BINARY_DIR}/debian/prerm
               @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                                      GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/debian/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Only the install rules above go into the package (not GoogleTest's or pybind11's).
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};assay;ALL;/")
include(CPack)
