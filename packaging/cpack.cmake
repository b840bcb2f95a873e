# `cpack -G DEB` in a build directory makes an installable package of the app.
set(CPACK_PACKAGE_NAME "recipegrid")
set(CPACK_PACKAGE_VENDOR "RecipeGrid")
set(CPACK_PACKAGE_CONTACT "RecipeGrid maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "nix-bin")
# dpkg-shlibdeps sees only linked libraries; the window needs a platform plugin (xcb) too.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
set(CPACK_GENERATOR "DEB;TGZ")
# recipegrid_VERSION_ARCH.deb, the name apt and dpkg users expect.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)

# KSyntaxHighlighting (top-level CMakeLists.txt): a distribution package (/usr/lib, /lib) becomes
# a dependency through dpkg-shlibdeps; a build of our own (setup.sh on Debian 12:
# build/deps/ksyntaxhighlighting-qt6) is shipped in lib/recipegrid under its SONAME and found
# through the installed RPATH. In the build tree the binary finds it through the build RPATH.
if(RG_KSYNTAXHIGHLIGHTING_LIBRARY AND NOT RG_KSYNTAXHIGHLIGHTING_LIBRARY MATCHES "^/(usr/)?lib/")
    install(FILES "${RG_KSYNTAXHIGHLIGHTING_LIBRARY}" DESTINATION lib/recipegrid
        RENAME "${RG_KSYNTAXHIGHLIGHTING_SONAME}")
    # A build prefix's RPATH means nothing on the installed system.
    install(CODE "file(RPATH_REMOVE FILE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/recipegrid/${RG_KSYNTAXHIGHLIGHTING_SONAME}\")")
    set_target_properties(recipegrid PROPERTIES INSTALL_RPATH "\$ORIGIN/../lib/recipegrid")
    # dpkg-shlibdeps resolves the shipped library here and takes its Qt 6 dependencies.
    get_filename_component(_rg_ksh_dir "${RG_KSYNTAXHIGHLIGHTING_LIBRARY}" DIRECTORY)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${_rg_ksh_dir}")
    message(STATUS "RecipeGrid packages ship ${RG_KSYNTAXHIGHLIGHTING_SONAME} in lib/recipegrid")
endif()
foreach(meta recipegrid.desktop io.recipegrid.RecipeGrid.metainfo.xml)
    if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${meta})
        if(meta MATCHES "desktop$")
            install(FILES ${CMAKE_CURRENT_LIST_DIR}/${meta} DESTINATION share/applications)
        else()
            install(FILES ${CMAKE_CURRENT_LIST_DIR}/${meta} DESTINATION share/metainfo)
        endif()
    endif()
endforeach()
include(CPack)
