// The one translation unit of each precompiled-header owner target
// (CMakeLists.txt recon_precompile): the header is built once and every
// library or test program reuses it.
