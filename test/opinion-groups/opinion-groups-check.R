# Reference figures for test/opinion-groups/engine-r.test.ts, from base R (stats::prcomp, stats::kmeans).
# Usage: Rscript opinion-groups-check.R <folder> [<folder> ...]: one R start for every data set. A folder holds either
#   pca: answers.csv  row,column,value (1-based; one row per answer; unanswered cells absent) and size.csv
#     rows,columns,fill,zeroed
#     Writes pca.csv: pc1,pc2 loadings (one row per column), scores.csv: pc1,pc2 (prcomp's x) and proj1,proj2 (the
#     sparsity-aware projection: the score over the answered columns × sqrt(columns / answered), 0 with no answer,
#     the `zeroed` statements counting as answered by everyone in both), sdev.csv.
#     Missing cells are filled with their column's mean (fill = mean) or 0 (fill = zero), then prcomp centres
#     (center = TRUE, scale. = FALSE); the projection centres by the same centre.
#   kmeans: points.csv x,y,times (each point repeated `times` times: integer weights) and start.csv x,y
#     Writes clusters.csv (cluster of each point, 1-based), centers.csv x,y, iter.csv:
#     kmeans(points, centers = start, algorithm = "Lloyd", iter.max = 100).
fmt <- function(v) sprintf("%.17g", v)

pca <- function(folder) {
  a <- read.csv(file.path(folder, "answers.csv"))
  size <- read.csv(file.path(folder, "size.csv"))
  m <- matrix(NA_real_, size$rows, size$columns)
  m[cbind(a$row, a$column)] <- a$value
  means <- colMeans(m, na.rm = TRUE)
  filled <- m
  for (j in seq_len(ncol(m))) filled[is.na(m[, j]), j] <- if (size$fill == "zero") 0 else means[j]
  p <- prcomp(filled, center = TRUE, scale. = FALSE)
  rot <- p$rotation[, 1:2]
  write.csv(data.frame(pc1 = fmt(rot[, 1]), pc2 = fmt(rot[, 2])), file.path(folder, "pca.csv"), row.names = FALSE, quote = FALSE)
  centred <- sweep(m, 2, p$center)
  answered <- rowSums(!is.na(m)) + size$zeroed
  proj <- sapply(1:2, function(k) rowSums(sweep(centred, 2, rot[, k], `*`), na.rm = TRUE) * sqrt((ncol(m) + size$zeroed) / answered))
  proj[answered == 0, ] <- 0 # nothing answered: at the centre
  write.csv(data.frame(pc1 = fmt(p$x[, 1]), pc2 = fmt(p$x[, 2]), proj1 = fmt(proj[, 1]), proj2 = fmt(proj[, 2])),
    file.path(folder, "scores.csv"), row.names = FALSE, quote = FALSE)
  write.csv(data.frame(sdev = fmt(p$sdev[1:2])), file.path(folder, "sdev.csv"), row.names = FALSE, quote = FALSE)
}

lloyd <- function(folder) {
  pts <- read.csv(file.path(folder, "points.csv"))
  start <- as.matrix(read.csv(file.path(folder, "start.csv")))
  x <- as.matrix(pts[rep(seq_len(nrow(pts)), pts$times), c("x", "y")])
  fit <- kmeans(x, centers = start, algorithm = "Lloyd", iter.max = 100)
  first <- cumsum(c(1, head(pts$times, -1)))
  write.csv(data.frame(cluster = fit$cluster[first]), file.path(folder, "clusters.csv"), row.names = FALSE, quote = FALSE)
  write.csv(data.frame(x = fmt(fit$centers[, 1]), y = fmt(fit$centers[, 2])), file.path(folder, "centers.csv"), row.names = FALSE, quote = FALSE)
  write.csv(data.frame(iter = fit$iter), file.path(folder, "iter.csv"), row.names = FALSE, quote = FALSE)
}

for (folder in commandArgs(trailingOnly = TRUE)) {
  if (file.exists(file.path(folder, "answers.csv"))) pca(folder) else lloyd(folder)
}
