# make formal: the formal checks of constraints/formal/ through scripts/formal.sh: Yosys proofs
# (*.ys, sat -tempinduct) and the Murphi model of the protocol checked by Rumur (*.rumur, the
# configurations of tb/formal/diktamo.m); a *.fail.* is a control that must fail. Logs in
# build/formal/. make regress runs the larger configurations of constraints/formal/regress/ too.
# Included by the Makefile.

.PHONY: formal
formal: $(RTL_PKGS) | $(SETUP) ## formal checks: Yosys proofs and the Rumur model of the protocol (one line each), logs in build/formal/
	FORMAL_OUT=$(B)/formal bash scripts/formal.sh
