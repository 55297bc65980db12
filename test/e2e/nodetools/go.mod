// The small programs of the e2e nodes, standard library only: the pause
// process and the static web server of the nodes' own images (no registry is
// reachable from the test machine), and the user-space delay between zones.
module topogate.dev/e2e/nodetools

go 1.26.0
