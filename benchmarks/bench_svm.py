"""The course's SVM against libsvm (scikit-learn's SVC), both solving the dual by SMO.

On a problem of this size ``cl.fit_svm`` solves the 1-norm soft margin's dual as libsvm
does, by SMO with second-order working-set selection, in NumPy: a Python loop of O(N)
array steps, kernel columns computed when a step needs them (libsvm: compiled C++, a
kernel cache, shrinking). It then makes the answer exact on the support vectors (a
linear solve and a KKT check at every example), which libsvm does not. Both are timed
in alternation, in this process, on the 1-versus-5 digit features of *Learning From
Data* (1,561 examples, RBF kernel, gamma = 1, C = 1), after checking that they find the
same support vectors. Goal: within 5x of libsvm. Offline, without the feature files,
the benchmark says so.
"""
from sklearn.svm import SVC

import course_lib as cl
from benchmarks import paired

C, GAMMA = 1.0, 1.0


def main():
    try:
        train = cl.load_features("train")
    except (OSError, ValueError) as exc:
        print(f"the digit features are not available ({exc}); no SVM figure")
        return
    mask, y = cl.one_vs_one(train.digits, 1, 5)
    X = train.X[mask]
    ours = cl.fit_svm(X, y, C=C, kernel="rbf", gamma=GAMMA)
    ref = SVC(C=C, kernel="rbf", gamma=GAMMA, tol=1e-6).fit(X, y)
    same = set(ours.support) == set(ref.support_)
    print(f"1 vs 5, N = {len(y)}, RBF gamma = {GAMMA}, C = {C}: {len(ours.support)} support vectors (course), "
          f"{len(ref.support_)} (libsvm), the same set: {same}")
    p = paired.alternate(lambda: cl.fit_svm(X, y, C=C, kernel="rbf", gamma=GAMMA),
                         lambda: SVC(C=C, kernel="rbf", gamma=GAMMA).fit(X, y), runs=3)
    paired.row(f"cl.fit_svm vs libsvm SVC (1 vs 5, N={len(y)}, RBF)", p, goal="<= 5x",
               met=p.ratio <= 5, note="" if same else "support vectors differ")


if __name__ == "__main__":
    main()
    paired.print_table()
