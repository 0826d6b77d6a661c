# Reference figures for test/statistics/weighting-r.test.ts, from R's survey package.
# Usage: Rscript weighting-check.R <folder> <mode> [<folder> <mode> ...]: one R start for every data set
#   <folder>/data.csv: band,area,rating[,w]  one row per respondent (w: fixed weights, mode "fixed" only)
#   mode "post":  postStratify on band x area, totals in <folder>/cells.csv (band,area,Freq); partial=TRUE
#   mode "rake":  rake on band and area, totals in <folder>/band.csv (band,Freq) and <folder>/area.csv (area,Freq)
#   mode "fixed": the weights w taken as they are, no calibration
#   mode "none":  every weight 1 (simple random sampling)
# Writes <folder>/estimates.csv (name,estimate,se: mean and share1..share5) and <folder>/weights.csv (w).
suppressPackageStartupMessages(library(survey))
check <- function(folder, mode) {
  d <- read.csv(file.path(folder, "data.csv"))
  d$band <- factor(d$band)
  d$area <- factor(d$area)
  d$level <- factor(d$rating, levels = 1:5)
  if (mode == "fixed") {
    design <- svydesign(ids = ~1, weights = ~w, data = d)
  } else {
    d$one <- 1
    design <- svydesign(ids = ~1, weights = ~one, data = d)
  }
  if (mode == "post") {
    cells <- read.csv(file.path(folder, "cells.csv"))
    cells$band <- factor(cells$band, levels = levels(d$band))
    cells$area <- factor(cells$area, levels = levels(d$area))
    design <- suppressWarnings(postStratify(design, ~band + area, cells, partial = TRUE))
  } else if (mode == "rake") {
    band <- read.csv(file.path(folder, "band.csv"))
    area <- read.csv(file.path(folder, "area.csv"))
    band <- band[band$band %in% levels(d$band), ]
    area <- area[area$area %in% levels(d$area), ]
    band$band <- factor(band$band, levels = levels(d$band))
    area$area <- factor(area$area, levels = levels(d$area))
    design <- rake(design, list(~band, ~area), list(band, area), control = list(maxit = 1000, epsilon = 1e-14))
  }
  m <- svymean(~rating, design)
  s <- svymean(~level, design)
  out <- data.frame(
    name = c("mean", paste0("share", 1:5)),
    estimate = c(coef(m), coef(s)),
    se = c(SE(m), SE(s))
  )
  write.csv(out, file.path(folder, "estimates.csv"), row.names = FALSE)
  write.csv(data.frame(w = weights(design)), file.path(folder, "weights.csv"), row.names = FALSE)
}
args <- commandArgs(trailingOnly = TRUE)
for (i in seq(1, length(args), by = 2)) check(args[i], args[i + 1])
