# R glmnet peer for tests/python/test_glmnet.py and bench/bench_glmnet.py.
#
#   Rscript glmnet_peer.R DIR MODE N P ALPHA
#
# DIR holds little-endian binary inputs written by the Python side: x.bin (N x P doubles,
# row-major), y.bin (N int32 class codes 0..K-1) and optionally w.bin (N doubles, row weights),
# lambda.bin (doubles, the λ path to use), foldid.bin (N int32, 1-based), newx.bin (M x P
# doubles, rows to predict). MODE "path" fits glmnet(); MODE "cv" fits cv.glmnet(type.measure =
# "deviance") and predicts newx at lambda.1se and lambda.min. Outputs (doubles, in DIR):
# lambda.bin, dev.bin, a0.bin (L x K, λ fastest), beta.bin (K blocks of P x L, column-major),
# and for "cv" cvm.bin, cvsd.bin, opt.bin (lambda.min, lambda.1se, elapsed and CPU
# seconds in cv.glmnet),
# prob_1se.bin / prob_min.bin (M x K row-major).
suppressMessages(library(glmnet))
args <- commandArgs(TRUE)
dir <- args[1]; mode <- args[2]; n <- as.integer(args[3]); p <- as.integer(args[4])
alpha <- as.numeric(args[5])
path <- function(name) file.path(dir, name)
rd <- function(name, what, size, count) readBin(path(name), what, n = count, size = size)
x <- matrix(rd("x.bin", "double", 8, n * p), nrow = n, ncol = p, byrow = TRUE)
y <- factor(rd("y.bin", "integer", 4, n))
w <- if (file.exists(path("w.bin"))) rd("w.bin", "double", 8, n) else rep(1, n)
lambda <- if (file.exists(path("lambda.bin"))) rd("lambda.bin", "double", 8, 1e6) else NULL
family <- if (nlevels(y) > 2) "multinomial" else "binomial"
wr <- function(v, name) writeBin(as.double(v), path(name))
coefs <- function(fit) {
  b <- coef(fit)
  if (!is.list(b)) b <- list(b)
  wr(t(sapply(b, function(m) as.matrix(m)[1, ])), "a0.bin")  # K x L, column-major = λ-major
  wr(unlist(lapply(b, function(m) as.matrix(m)[-1, ])), "beta.bin")
}
if (mode == "path") {
  fit <- glmnet(x, y, family = family, weights = w, alpha = alpha, lambda = lambda)
  wr(fit$lambda, "lambda.bin"); wr(fit$dev.ratio, "dev.bin"); coefs(fit)
} else {
  foldid <- rd("foldid.bin", "integer", 4, n)
  timing <- system.time(cv <- cv.glmnet(x, y, family = family, weights = w, alpha = alpha,
                                        lambda = lambda, foldid = foldid,
                                        type.measure = "deviance"))
  seconds <- c(timing[["elapsed"]], timing[["user.self"]] + timing[["sys.self"]])
  fit <- cv$glmnet.fit
  wr(fit$lambda, "lambda.bin"); wr(fit$dev.ratio, "dev.bin"); coefs(fit)
  wr(cv$cvm, "cvm.bin"); wr(cv$cvsd, "cvsd.bin")
  wr(c(cv$lambda.min, cv$lambda.1se, seconds), "opt.bin")
  if (file.exists(path("newx.bin"))) {
    m <- file.info(path("newx.bin"))$size / 8 / p
    newx <- matrix(rd("newx.bin", "double", 8, m * p), nrow = m, ncol = p, byrow = TRUE)
    for (s in c("lambda.1se", "lambda.min")) {
      pr <- predict(cv, newx, s = s, type = "response")
      pr <- if (family == "binomial") cbind(1 - pr[, 1], pr[, 1]) else pr[, , 1]
      wr(t(pr), if (s == "lambda.1se") "prob_1se.bin" else "prob_min.bin")
    }
  }
}
