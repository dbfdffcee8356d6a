#!/bin/bash
# a stand-in for mmtests' run-mmtests.sh: only its install-depends lines are read
install-depends util-linux
install-depends gawk numactl
install-depends bc binutils-devel	\
	which perl-File-Slurp "$NOT_A_NAME" # a comment
	install-depends $PACKAGE
