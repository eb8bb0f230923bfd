# deploy/: kubectl accepts the manifests (skipped without kubectl).
add_test(NAME deploy.kubectl_dry_run
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/kubectl_dry_run.sh $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR})
set_tests_properties(deploy.kubectl_dry_run PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
# Each variant (deploy/, deploy/aro/): RBAC = `recon rbac` for its domains,
# every agent flag known (no kubectl needed).
add_test(NAME deploy.variants
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/variants.sh $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR})
set_tests_properties(deploy.variants PROPERTIES TIMEOUT 60)
# scripts/image's root filesystem (mmdebstrap, Debian's packages) runs
# recon with chroot: the image is proven without a container runtime.
add_test(NAME deploy.image_rootfs
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/image_test.sh $<TARGET_FILE:recon> ${CMAKE_SOURCE_DIR})
set_tests_properties(deploy.image_rootfs PROPERTIES TIMEOUT 600)
