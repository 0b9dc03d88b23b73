# Peer for bench/bench_cart.py: R rpart on a data set handed over as a binary file.
#
#   Rscript bench/cart_peer.R DATA.bin N P NCLASS CONTROL OUT_PREFIX
#
# DATA.bin: N*P doubles (row-major, little-endian), then N int32 class codes 0..NCLASS-1.
# CONTROL: an R expression for rpart's control, e.g. "rpart.control(xval = 0)".
# Writes OUT_PREFIX.tree (one line per node of fit$frame: node var n cut ncat), OUT_PREFIX.pred
# (predicted probabilities of the N rows, binary doubles, row-major) and OUT_PREFIX.time
# (elapsed and user+system seconds of system.time around rpart() only).
suppressMessages(library(rpart))
args <- commandArgs(trailingOnly = TRUE)
n <- as.integer(args[2]); p <- as.integer(args[3]); nclass <- as.integer(args[4])
con <- file(args[1], "rb")
x <- matrix(readBin(con, "double", n * p), n, p, byrow = TRUE)
y <- readBin(con, "integer", n)
close(con)
d <- as.data.frame(x)
names(d) <- paste0("x", seq_len(p) - 1L)
d$y <- factor(y, levels = seq_len(nclass) - 1L)
control <- eval(parse(text = args[5]))
invisible(gc())
tm <- system.time(fit <- rpart(y ~ ., data = d, method = "class", control = control))
ff <- fit$frame
is_leaf <- ff$var == "<leaf>"
# Row of each split node's primary split in fit$splits (as rpart's labels.rpart finds it).
first <- cumsum(c(1, ff$ncompete + ff$nsurrogate + !is_leaf))
rows <- first[c(!is_leaf, FALSE)]
cut <- rep(NA_real_, nrow(ff)); ncat <- rep(0L, nrow(ff))
if (any(!is_leaf)) {
  cut[!is_leaf] <- fit$splits[rows, "index"]
  ncat[!is_leaf] <- as.integer(fit$splits[rows, "ncat"])
}
writeLines(sprintf("%s %s %d %.17g %d", rownames(ff), as.character(ff$var), ff$n, cut, ncat),
           paste0(args[6], ".tree"))
prob <- predict(fit, newdata = d, type = "prob")
writeBin(as.vector(t(prob)), paste0(args[6], ".pred"))
writeLines(sprintf("%.4f %.4f", tm[["elapsed"]], tm[["user.self"]] + tm[["sys.self"]]),
           paste0(args[6], ".time"))
