# Reference figures for test/compare-questions/rank-correlation-r.test.ts, from base R (stats).
# Usage: Rscript rank-correlation-check.R <folder> [<folder> ...]: one R start for every data set
#   <folder>/data.csv: x,y  one row per respondent (the two answers, as category numbers)
# Writes <folder>/figures.csv (name,value; NA when R has none, 17 significant digits):
#   tau  cor(x, y, method = "kendall"), which is tau-b
#   z, p cor.test(x, y, method = "kendall", exact = FALSE): the normal approximation with the tie-corrected variance
#   chisq, df  chisq.test(table(x, y), correct = FALSE): Pearson's chi-square over the categories present
check <- function(folder) {
  d <- read.csv(file.path(folder, "data.csv"))
  tau <- suppressWarnings(cor(d$x, d$y, method = "kendall"))
  z <- NA
  p <- NA
  if (!is.na(tau)) {
    test <- suppressWarnings(cor.test(d$x, d$y, method = "kendall", exact = FALSE))
    z <- unname(test$statistic)
    p <- test$p.value
  }
  tab <- table(d$x, d$y)
  chisq <- NA
  df <- NA
  if (min(dim(tab)) >= 2) {
    chi <- suppressWarnings(chisq.test(tab, correct = FALSE))
    chisq <- unname(chi$statistic)
    df <- unname(chi$parameter)
  }
  values <- c(tau, z, p, chisq, df)
  out <- data.frame(name = c("tau", "z", "p", "chisq", "df"), value = ifelse(is.na(values), "NA", sprintf("%.17g", values)))
  write.csv(out, file.path(folder, "figures.csv"), row.names = FALSE, quote = FALSE)
}
for (folder in commandArgs(trailingOnly = TRUE)) check(folder)
